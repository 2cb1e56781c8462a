import math

n = int(input())
k = math.isqrt(n)
# Forgets that the k x k square is counted twice: subtracts k instead of k * k.
print(2 * sum(n // i for i in range(1, k + 1)) - k)
