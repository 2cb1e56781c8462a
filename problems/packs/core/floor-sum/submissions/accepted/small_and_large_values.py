import math


def solve(n):
    k = math.isqrt(n)
    total = 0
    # i <= k: add each term directly.
    for i in range(1, k + 1):
        total += n // i
    # i > k: every term is a value v < n // k; count the i with n // i == v.
    for v in range(1, n // (k + 1) + 1):
        total += v * (n // v - n // (v + 1))
    return total


print(solve(int(input())))
