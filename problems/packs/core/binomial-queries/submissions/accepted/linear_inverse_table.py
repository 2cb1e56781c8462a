# Inverses of 1..N by inv[i] = -(p // i) * inv[p % i], then factorial and inverse factorial tables; O(N + q).
import sys

MOD = 1_000_000_007


def main():
    data = sys.stdin.buffer.read().split()
    q = int(data[0])
    pairs = list(map(int, data[1:1 + 2 * q]))
    top = max(max(pairs[0::2]), 1)
    inv = [0, 1] + [0] * (top - 1)
    for i in range(2, top + 1):
        inv[i] = (MOD - MOD // i) * inv[MOD % i] % MOD
    fact = [1] * (top + 1)
    inv_fact = [1] * (top + 1)
    for i in range(1, top + 1):
        fact[i] = fact[i - 1] * i % MOD
        inv_fact[i] = inv_fact[i - 1] * inv[i] % MOD
    out = []
    for j in range(0, 2 * q, 2):
        n, k = pairs[j], pairs[j + 1]
        out.append(fact[n] * inv_fact[k] % MOD * inv_fact[n - k] % MOD)
    sys.stdout.write("\n".join(map(str, out)) + "\n")


main()
