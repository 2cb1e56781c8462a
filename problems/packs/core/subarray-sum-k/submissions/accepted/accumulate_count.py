# For every start, itertools.accumulate the suffix and list.count(k) at C speed; O(n^2).
import sys
from itertools import accumulate


def main():
    data = sys.stdin.buffer.read().split()
    n, k = int(data[0]), int(data[1])
    a = list(map(int, data[2:2 + n]))
    count = 0
    for i in range(n):
        count += list(accumulate(a[i:])).count(k)
    print(count)


main()
