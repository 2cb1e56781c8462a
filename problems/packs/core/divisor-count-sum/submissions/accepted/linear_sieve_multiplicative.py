# Linear sieve with smallest prime factors: d is multiplicative, d(i * p) follows from the exponent of p; O(N).
import sys
from itertools import accumulate


def main():
    data = sys.stdin.buffer.read().split()
    q = int(data[0])
    queries = list(map(int, data[1:1 + q]))
    top = max(queries)
    d = [0] * (top + 1)
    exp = [0] * (top + 1)  # exponent of the smallest prime factor
    composite = bytearray(top + 1)
    primes = []
    if top >= 1:
        d[1] = 1
    for i in range(2, top + 1):
        if not composite[i]:
            primes.append(i)
            d[i] = 2
            exp[i] = 1
        di = d[i]
        for p in primes:
            j = i * p
            if j > top:
                break
            composite[j] = 1
            if i % p == 0:
                e = exp[i]
                exp[j] = e + 1
                d[j] = di // (e + 1) * (e + 2)
                break
            exp[j] = 1
            d[j] = di * 2
    prefix = list(accumulate(d))
    sys.stdout.write("\n".join(str(prefix[n]) for n in queries) + "\n")


main()
