# Built-in min over a slice for every query (C speed, still O(n) per query); O(n * q).
import sys


def main():
    data = sys.stdin.buffer.read().split()
    n, q = int(data[0]), int(data[1])
    a = list(map(int, data[2:2 + n]))
    out = []
    pos = 2 + n
    for _ in range(q):
        l, r = int(data[pos]), int(data[pos + 1])
        pos += 2
        out.append(min(a[l - 1:r]))
    sys.stdout.write("\n".join(map(str, out)) + "\n")


main()
