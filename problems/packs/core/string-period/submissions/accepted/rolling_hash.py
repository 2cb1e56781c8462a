# Prefix hashes mod 2^61-1: a shift p is a period when the length n-p prefix and suffix match, O(n) expected.
import sys

MOD = (1 << 61) - 1
BASE = 911382323


def main():
    s = sys.stdin.buffer.readline().strip()
    n = len(s)
    h = [0] * (n + 1)
    pw = [1] * (n + 1)
    for i, c in enumerate(s):
        h[i + 1] = (h[i] * BASE + c) % MOD
        pw[i + 1] = pw[i] * BASE % MOD
    for p in range(1, n):
        length = n - p
        suffix = (h[n] - h[p] * pw[length]) % MOD
        # equal hashes are confirmed by a direct comparison, so a collision cannot give a wrong answer
        if suffix == h[length] and s[p:] == s[:length]:
            print(p)
            return
    print(n)


main()
