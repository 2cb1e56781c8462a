# Factorial table, then two inverses per query by a hand-written square-and-multiply loop; O(N + q log p).
MOD = 1_000_000_007


def power(base, exp):
    result = 1
    base %= MOD
    while exp > 0:
        if exp & 1:
            result = result * base % MOD
        base = base * base % MOD
        exp >>= 1
    return result


def main():
    q = int(input())
    queries = [tuple(map(int, input().split())) for _ in range(q)]
    top = max(n for n, _ in queries)
    fact = [1] * (top + 1)
    for i in range(1, top + 1):
        fact[i] = fact[i - 1] * i % MOD
    for n, k in queries:
        inv_k = power(fact[k], MOD - 2)
        inv_rest = power(fact[n - k], MOD - 2)
        print(fact[n] * inv_k % MOD * inv_rest % MOD)


main()
