# Doubling: after step j, m[i] is the maximum of a[i : i + 2^j]; two overlapping powers of two
# cover a window of any length: O(n log w), every pass a C-speed map(max, ...).
import sys


def main():
    data = sys.stdin.buffer.read().split()
    n, w = int(data[0]), int(data[1])
    m = list(map(int, data[2:2 + n]))
    span = 1
    while 2 * span <= w:
        m = list(map(max, m[:len(m) - span], m[span:]))
        span *= 2
    out = map(max, m[:n - w + 1], m[w - span:])
    print(" ".join(map(str, out)))


main()
