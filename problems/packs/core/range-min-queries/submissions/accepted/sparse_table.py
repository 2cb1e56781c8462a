# Sparse table of minima over power-of-two windows, built with map(min) rows; O(n log n + q).
import sys


def main():
    data = sys.stdin.buffer.read().split()
    n, q = int(data[0]), int(data[1])
    row = list(map(int, data[2:2 + n]))
    table = [row]
    step = 1
    while 2 * step <= n:
        row = list(map(min, row, row[step:]))  # window 2*step starting at each index
        table.append(row)
        step *= 2
    out = []
    pos = 2 + n
    for _ in range(q):
        l, r = int(data[pos]) - 1, int(data[pos + 1])  # half-open [l, r)
        pos += 2
        k = (r - l).bit_length() - 1
        level = table[k]
        x, y = level[l], level[r - (1 << k)]
        out.append(x if x < y else y)
    sys.stdout.write("\n".join(map(str, out)) + "\n")


main()
