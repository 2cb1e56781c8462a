import math

n = int(input())
# counts the primes strictly below n
sieve = bytearray([1]) * max(n, 2)
sieve[0] = sieve[1] = 0
for i in range(2, math.isqrt(n) + 1):
    if sieve[i]:
        sieve[i * i::i] = bytes(len(range(i * i, len(sieve), i)))
print(sieve.count(1))
