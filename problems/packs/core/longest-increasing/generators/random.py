"""Random test for longest-increasing: python3 random.py SEED SIZE (SIZE 1..100)."""
import random
import sys


def main():
    seed, size = int(sys.argv[1]), int(sys.argv[2])
    size = max(1, min(100, size))
    rng = random.Random(seed)
    n = rng.randint(1, 8) if size == 1 else rng.randint(32 * size, 35 * size)
    mode = rng.randrange(3)
    if mode == 0:  # wide values, almost all distinct
        a = [rng.randint(-10**9, 10**9) for _ in range(n)]
    elif mode == 1:  # narrow range: many equal values
        hi = max(1, n // 4)
        a = [rng.randint(1, hi) for _ in range(n)]
    else:  # noisy upward trend: long answers, some repeats
        a = [i // 2 + rng.randint(-n // 10 - 1, n // 10 + 1) for i in range(n)]
    print(n)
    print(" ".join(map(str, a)))


main()
