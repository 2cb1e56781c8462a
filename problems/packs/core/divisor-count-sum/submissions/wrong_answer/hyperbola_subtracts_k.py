# Dirichlet hyperbola with the wrong overlap correction: subtracts k instead of k * k.
from math import isqrt

q = int(input())
for _ in range(q):
    n = int(input())
    k = isqrt(n)
    total = sum(n // i for i in range(1, k + 1))
    print(2 * total - k)  # bug: the k-by-k square of lattice points is counted twice, not k points
