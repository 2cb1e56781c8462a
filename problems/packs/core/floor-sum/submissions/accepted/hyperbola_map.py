from math import isqrt

n = int(input())
k = isqrt(n)
print(2 * sum(map(n.__floordiv__, range(1, k + 1))) - k * k)
