# Factorial table, then one Fermat inverse pow(x, p - 2, p) per query; O(N + q log p).
import sys

MOD = 1_000_000_007


def main():
    readline = sys.stdin.readline
    q = int(readline())
    queries = [tuple(map(int, readline().split())) for _ in range(q)]
    top = max(n for n, _ in queries)
    fact = [1] * (top + 1)
    for i in range(1, top + 1):
        fact[i] = fact[i - 1] * i % MOD
    out = []
    for n, k in queries:
        out.append(fact[n] * pow(fact[k] * fact[n - k] % MOD, MOD - 2, MOD) % MOD)
    sys.stdout.write("\n".join(map(str, out)) + "\n")


main()
