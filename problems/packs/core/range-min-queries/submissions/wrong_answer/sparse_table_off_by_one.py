# Sparse table whose second window starts one position too early (it may include a[l-1]).
import sys


def main():
    data = sys.stdin.buffer.read().split()
    n, q = int(data[0]), int(data[1])
    row = list(map(int, data[2:2 + n]))
    table = [row]
    step = 1
    while 2 * step <= n:
        row = list(map(min, row, row[step:]))
        table.append(row)
        step *= 2
    out = []
    pos = 2 + n
    for _ in range(q):
        l, r = int(data[pos]) - 1, int(data[pos + 1]) - 1  # inclusive
        pos += 2
        k = (r - l + 1).bit_length() - 1
        out.append(min(table[k][l], table[k][r - (1 << k)]))  # bug: should be r - 2^k + 1
    sys.stdout.write("\n".join(map(str, out)) + "\n")


main()
