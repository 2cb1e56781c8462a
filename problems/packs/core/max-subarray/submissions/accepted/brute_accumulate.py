# Every start i, max(itertools.accumulate(a[i:])) gives the best sum starting there: O(n^2) at C speed.
import sys
from itertools import accumulate


def main():
    data = sys.stdin.buffer.read().split()
    n = int(data[0])
    a = list(map(int, data[1:n + 1]))
    print(max(max(accumulate(a[i:])) for i in range(n)))


main()
