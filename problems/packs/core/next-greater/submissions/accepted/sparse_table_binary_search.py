# Sparse table of range maxima, then binary lifting to the first greater position, O(n log n).
import sys


def main():
    data = sys.stdin.buffer.read().split()
    n = int(data[0])
    a = list(map(int, data[1:1 + n]))
    # table[k][i] = max(a[i : i + 2**k])
    table = [a]
    k = 1
    while (1 << k) <= n:
        prev = table[-1]
        half = 1 << (k - 1)
        table.append([max(prev[i], prev[i + half]) for i in range(n - (1 << k) + 1)])
        k += 1
    res = []
    for i in range(n):
        v = a[i]
        pos = i + 1  # a[i+1 .. pos-1] are all known to be <= v
        for k in range(len(table) - 1, -1, -1):
            row = table[k]
            if pos < len(row) and row[pos] <= v:
                pos += 1 << k
        res.append(a[pos] if pos < n else -1)
    print(" ".join(map(str, res)))


main()
