# Group prefix positions by value, then bisect in the list for value P[j] - k; O(n log n).
import sys
from bisect import bisect_left


def main():
    data = sys.stdin.read().split()
    n, k = int(data[0]), int(data[1])
    prefix = [0] * (n + 1)
    for i in range(n):
        prefix[i + 1] = prefix[i] + int(data[2 + i])
    positions = {}
    for idx, p in enumerate(prefix):
        positions.setdefault(p, []).append(idx)
    count = 0
    for j in range(1, n + 1):
        lst = positions.get(prefix[j] - k)
        if lst:
            count += bisect_left(lst, j)  # earlier prefixes with the needed value
    print(count)


main()
