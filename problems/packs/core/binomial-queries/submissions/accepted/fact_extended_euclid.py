# Factorial table, then a modular inverse per query by the extended Euclidean algorithm; O(N + q log p).
import sys

MOD = 1_000_000_007


def inverse(a):
    # returns x with a * x = 1 (mod MOD), tracking only the coefficient of a
    old_r, r = a % MOD, MOD
    old_x, x = 1, 0
    while r:
        quotient = old_r // r
        old_r, r = r, old_r - quotient * r
        old_x, x = x, old_x - quotient * x
    return old_x % MOD


def main():
    data = sys.stdin.read().split()
    q = int(data[0])
    ns = [int(x) for x in data[1::2]]
    ks = [int(x) for x in data[2::2]]
    top = max(ns)
    fact = [1] * (top + 1)
    for i in range(1, top + 1):
        fact[i] = fact[i - 1] * i % MOD
    out = []
    for j in range(q):
        n, k = ns[j], ks[j]
        out.append(fact[n] * inverse(fact[k] * fact[n - k] % MOD) % MOD)
    print("\n".join(map(str, out)))


main()
