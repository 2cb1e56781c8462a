import math

n = int(input())
k = math.isqrt(n)
# Lattice points under xy = n are symmetric about x = y.
print(2 * sum(n // i for i in range(1, k + 1)) - k * k)
