from functools import lru_cache

n, m = map(int, input().split())


@lru_cache(maxsize=None)
def fib(k):
    if k < 3:
        return (0, 1, 1)[k] % m
    h = k // 2
    if k % 2 == 0:
        # F(2h) = F(h) * (F(h+1) + F(h-1))
        return fib(h) * (fib(h + 1) + fib(h - 1)) % m
    # F(2h+1) = F(h+1)^2 + F(h)^2
    return (fib(h + 1) ** 2 + fib(h) ** 2) % m


print(fib(n))
