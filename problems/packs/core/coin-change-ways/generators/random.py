"""Random test for coin-change-ways: python3 -P random.py SEED SIZE (SIZE 1..100).

Up to k = 50 distinct coins and an amount up to A = 20000 (both at their maximum at
SIZE=100). The coins are drawn from a random range: small values, values up to the amount,
values up to 10^5 (many of them useless), or only multiples of some base, so that some
amounts cannot be paid at all."""
import random
import sys

K_MAX = 50
A_MAX = 20000
C_MAX = 100000


def main():
    seed, size = int(sys.argv[1]), int(sys.argv[2])
    size = max(1, min(100, size))
    rng = random.Random(seed)
    k_top = max(1, round(K_MAX * size / 100))
    a_top = max(1, round(A_MAX * size / 100))
    if size == 100:
        k, amount = k_top, a_top
    else:
        k, amount = rng.randint(1, k_top), rng.randint(0, a_top)
    kind = rng.choice(["small", "up_to_amount", "huge", "multiples"])
    if kind == "small":
        pool = range(1, 3 * k + 1)
    elif kind == "up_to_amount":
        pool = range(1, max(k, amount) + 1)
    elif kind == "huge":
        pool = range(1, C_MAX + 1)
    else:
        base = rng.randint(2, 7)
        pool = range(base, base * (3 * k + 1), base)
    coins = rng.sample(pool, k)
    print(k, amount)
    print(" ".join(map(str, coins)))


main()
