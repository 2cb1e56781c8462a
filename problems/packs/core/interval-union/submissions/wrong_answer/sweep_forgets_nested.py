# Sort and sweep, but an overlapping stretch always replaces the right end, even when it ends earlier (nested case).
import sys


def main():
    data = sys.stdin.buffer.read().split()
    n = int(data[0])
    it = map(int, data[1:1 + 2 * n])
    intervals = sorted(zip(it, it))
    total = 0
    cur_l, cur_r = intervals[0]
    for l, r in intervals[1:]:
        if l > cur_r:
            total += cur_r - cur_l
            cur_l, cur_r = l, r
        else:
            cur_r = r  # bug: should be max(cur_r, r)
    total += cur_r - cur_l
    print(total)


main()
