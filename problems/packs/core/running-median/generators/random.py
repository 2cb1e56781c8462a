"""Random test for running-median: python3 generators/random.py SEED SIZE (SIZE 1..100)."""
import random
import sys

N_MAX = 6000


def main():
    seed, size = int(sys.argv[1]), int(sys.argv[2])
    size = max(1, min(100, size))
    rng = random.Random(seed)
    n = max(1, round(N_MAX * (size / 100) ** 1.5))
    spread = rng.choice([0, 3, max(1, n // 10), n, 10**9])
    values = [rng.randint(-spread, spread) for _ in range(n)]
    print(n)
    print(" ".join(map(str, values)))


main()
