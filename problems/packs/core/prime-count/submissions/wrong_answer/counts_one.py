import math

n = int(input())
sieve = bytearray([1]) * (n + 1)
sieve[0] = 0  # forgets that 1 is not prime
for i in range(2, math.isqrt(n) + 1):
    if sieve[i]:
        sieve[i * i::i] = bytes(len(range(i * i, n + 1, i)))
print(sieve.count(1))
