n, m = map(int, input().split())
a, b = 0, 1  # F(k), F(k+1) for k = the bits of n read so far
for bit in bin(n)[2:]:
    c = a * (2 * b - a) % m
    d = (a * a + b * b) % m
    if bit == "1":
        a, b = d, (c + d) % m
    else:
        a, b = c, d
print(a)
