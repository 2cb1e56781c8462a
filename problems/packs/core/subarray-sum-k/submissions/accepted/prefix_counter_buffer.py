# accumulate prefix sums and a defaultdict counter, fast buffer reading; O(n).
import sys
from collections import defaultdict
from itertools import accumulate


def main():
    data = sys.stdin.buffer.read().split()
    n, k = int(data[0]), int(data[1])
    seen = defaultdict(int)
    seen[0] = 1
    count = 0
    for s in accumulate(map(int, data[2:2 + n])):
        count += seen[s - k]
        seen[s] += 1
    print(count)


main()
