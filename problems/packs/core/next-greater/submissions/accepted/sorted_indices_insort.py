# Visit values from largest to smallest, keep their positions sorted and bisect, O(n log n).
import sys
from bisect import bisect_right, insort


def main():
    data = sys.stdin.buffer.read().split()
    n = int(data[0])
    a = list(map(int, data[1:1 + n]))
    order = sorted(range(n), key=lambda i: -a[i])
    res = [-1] * n
    placed = []  # sorted positions of values strictly greater than the current group
    start = 0
    while start < n:
        end = start
        while end < n and a[order[end]] == a[order[start]]:
            end += 1
        group = order[start:end]
        for i in group:
            k = bisect_right(placed, i)
            if k < len(placed):
                res[i] = a[placed[k]]
        for i in group:
            insort(placed, i)
        start = end
    print(" ".join(map(str, res)))


main()
