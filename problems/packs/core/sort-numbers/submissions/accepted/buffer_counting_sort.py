# Bulk bytes I/O; counting sort over the value range when it is small (O(n + range)), else sorted(): O(n log n).
import sys


def main():
    data = sys.stdin.buffer.read().split()
    n = int(data[0])
    values = list(map(int, data[1:n + 1]))
    lo, hi = min(values), max(values)
    if hi - lo <= 4 * n + 1000:
        counts = [0] * (hi - lo + 1)
        for v in values:
            counts[v - lo] += 1
        # each value's text repeated as often as it occurs
        pieces = [(str(v) + " ") * c for v, c in zip(range(lo, hi + 1), counts) if c]
        sys.stdout.write("".join(pieces).rstrip() + "\n")
    else:
        values.sort()
        sys.stdout.write(" ".join(map(str, values)) + "\n")


main()
