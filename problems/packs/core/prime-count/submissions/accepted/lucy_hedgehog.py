# Prime counting without a full sieve (Lucy_Hedgehog's method), about n^(3/4) steps.
# S(v) starts as the count of 2..v; for each prime p it loses the numbers whose smallest
# prime factor is p. Only the values n // i are needed: small[v] holds S(v) for v <= r,
# large[i] holds S(n // i) for i <= r.
import math


def prime_pi(n):
    if n < 2:
        return 0
    r = math.isqrt(n)
    small = [v - 1 for v in range(r + 1)]
    large = [0] + [n // i - 1 for i in range(1, r + 1)]
    for p in range(2, r + 1):
        if small[p] == small[p - 1]:
            continue  # p is not prime
        before = small[p - 1]
        p2 = p * p
        for i in range(1, r + 1):
            if n // i < p2:
                break
            j = i * p
            large[i] -= (large[j] if j <= r else small[n // j]) - before
        for v in range(r, p2 - 1, -1):
            small[v] -= small[v // p] - before
    return large[1]


print(prime_pi(int(input())))
