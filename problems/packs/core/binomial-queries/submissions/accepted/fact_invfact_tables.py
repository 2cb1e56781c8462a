# Factorial table and inverse factorials from one pow at the top, walking down; O(N + q) with fast I/O.
import sys

MOD = 1_000_000_007


def main():
    data = sys.stdin.buffer.read().split()
    q = int(data[0])
    pairs = list(map(int, data[1:1 + 2 * q]))
    ns = pairs[0::2]
    ks = pairs[1::2]
    top = max(ns)
    fact = [1] * (top + 1)
    f = 1
    for i in range(1, top + 1):
        f = f * i % MOD
        fact[i] = f
    inv_fact = [1] * (top + 1)
    g = pow(f, MOD - 2, MOD)
    for i in range(top, 0, -1):
        inv_fact[i] = g
        g = g * i % MOD
    out = [fact[n] * inv_fact[k] % MOD * inv_fact[n - k] % MOD for n, k in zip(ns, ks)]
    sys.stdout.write("\n".join(map(str, out)) + "\n")


main()
