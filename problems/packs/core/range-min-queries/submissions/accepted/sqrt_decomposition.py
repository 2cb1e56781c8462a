# Square-root decomposition: minimum of each block of ~sqrt(n) elements; O((n + q) * sqrt(n)).
import sys
from math import isqrt


def main():
    data = sys.stdin.buffer.read().split()
    n, q = int(data[0]), int(data[1])
    a = list(map(int, data[2:2 + n]))
    size = max(1, isqrt(n))
    blocks = [min(a[i:i + size]) for i in range(0, n, size)]
    out = []
    pos = 2 + n
    for _ in range(q):
        l, r = int(data[pos]) - 1, int(data[pos + 1]) - 1
        pos += 2
        bl, br = l // size, r // size
        if bl == br:
            best = a[l]
            for i in range(l + 1, r + 1):
                if a[i] < best:
                    best = a[i]
        else:
            best = a[l]
            for i in range(l + 1, (bl + 1) * size):
                if a[i] < best:
                    best = a[i]
            for b in range(bl + 1, br):
                if blocks[b] < best:
                    best = blocks[b]
            for i in range(br * size, r + 1):
                if a[i] < best:
                    best = a[i]
        out.append(best)
    sys.stdout.write("\n".join(map(str, out)) + "\n")


main()
