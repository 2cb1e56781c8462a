# Factorial table built with append, then two inverses pow(x, -1, p) per query; O(N + q log p).
import sys

MOD = 1_000_000_007


def main():
    data = sys.stdin.buffer.read().split()
    q = int(data[0])
    pairs = list(map(int, data[1:1 + 2 * q]))
    top = max(pairs[0::2])
    fact = [1]
    f = 1
    for i in range(1, top + 1):
        f = f * i % MOD
        fact.append(f)
    out = []
    for j in range(0, 2 * q, 2):
        n, k = pairs[j], pairs[j + 1]
        out.append(fact[n] * pow(fact[k], -1, MOD) % MOD * pow(fact[n - k], -1, MOD) % MOD)
    sys.stdout.write("\n".join(map(str, out)) + "\n")


main()
