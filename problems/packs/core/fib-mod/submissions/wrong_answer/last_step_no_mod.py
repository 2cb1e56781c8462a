n, m = map(int, input().split())
if n == 0:
    print(0)
else:
    a, b = 0, 1  # F(k-2), F(k-1)
    for _ in range(n - 2):
        a, b = b, (a + b) % m
    print(a + b)  # F(n) = F(n-2) + F(n-1), but forgot the final "% m"
