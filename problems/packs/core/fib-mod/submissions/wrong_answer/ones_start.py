n, m = map(int, input().split())
a, b = 1, 1  # starts the sequence at 1, 1: prints F(n+1)
for _ in range(n):
    a, b = b, (a + b) % m
print(a)
