import sys

sys.setrecursionlimit(10000)


def fib_pair(n, m):
    """Return (F(n) mod m, F(n+1) mod m)."""
    if n == 0:
        return 0, 1
    a, b = fib_pair(n // 2, m)
    c = a * ((2 * b - a) % m) % m  # F(2k)
    d = (a * a + b * b) % m  # F(2k+1)
    if n % 2 == 0:
        return c, d
    return d, (c + d) % m


n, m = map(int, sys.stdin.readline().split())
print(fib_pair(n, m)[0])
