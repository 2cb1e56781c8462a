# Dirichlet hyperbola per query: D(n) = 2 * sum(n // k for k <= sqrt(n)) - floor(sqrt(n))^2; O(q sqrt N).
from math import isqrt


def divisor_sum(n):
    k = isqrt(n)
    total = 0
    for i in range(1, k + 1):
        total += n // i
    return 2 * total - k * k


q = int(input())
for _ in range(q):
    print(divisor_sum(int(input())))
