# Recursive divide and conquer: best in the left half, the right half, or across the middle: O(n log n).
import sys

sys.setrecursionlimit(10000)


def best_sum(a, lo, hi):
    if hi - lo == 1:
        return a[lo]
    mid = (lo + hi) // 2
    left = best_sum(a, lo, mid)
    right = best_sum(a, mid, hi)
    s = 0
    best_left_end = a[mid - 1]
    for i in range(mid - 1, lo - 1, -1):
        s += a[i]
        if s > best_left_end:
            best_left_end = s
    s = 0
    best_right_start = a[mid]
    for i in range(mid, hi):
        s += a[i]
        if s > best_right_start:
            best_right_start = s
    return max(left, right, best_left_end + best_right_start)


def main():
    data = sys.stdin.read().split()
    n = int(data[0])
    a = [int(x) for x in data[1:n + 1]]
    print(best_sum(a, 0, n))


main()
