# Sort the stretches by left end and sweep, extending the current piece while they overlap: O(n log n).
import sys


def main():
    data = sys.stdin.buffer.read().split()
    n = int(data[0])
    it = map(int, data[1:1 + 2 * n])
    intervals = sorted(zip(it, it))
    total = 0
    cur_l, cur_r = intervals[0]
    for l, r in intervals:
        if l > cur_r:
            total += cur_r - cur_l
            cur_l, cur_r = l, r
        elif r > cur_r:
            cur_r = r
    total += cur_r - cur_l
    print(total)


main()
