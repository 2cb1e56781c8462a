def main():
    n, m = map(int, input().split())
    a, b = 0, 1  # F(2k), F(2k+1)
    for _ in range(n // 2):
        a = (a + b) % m
        b = (a + b) % m
    print(b % m if n % 2 else a % m)


main()
