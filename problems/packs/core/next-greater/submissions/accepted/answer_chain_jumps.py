# Right to left, jump along already computed next-greater links, O(n) amortized.
import sys


def main():
    data = sys.stdin.buffer.read().split()
    n = int(data[0])
    a = list(map(int, data[1:1 + n]))
    nxt = [n] * n  # index of the next strictly greater element, n if none
    for i in range(n - 2, -1, -1):
        v = a[i]
        j = i + 1
        while j < n and a[j] <= v:
            j = nxt[j]
        nxt[i] = j
    print(" ".join(str(a[j]) if j < n else "-1" for j in nxt))


main()
