"""Random test for pair-sum-count: python3 generators/random.py SEED SIZE (SIZE 1..100)."""
import random
import sys

N_MAX = 7000


def main():
    seed, size = int(sys.argv[1]), int(sys.argv[2])
    size = max(1, min(100, size))
    rng = random.Random(seed)
    n = max(1, round(N_MAX * (size / 100) ** 1.5))
    spread = rng.choice([0, 2, max(1, n // 20), n, 10**9])
    values = [rng.randint(-spread, spread) for _ in range(n)]
    if n >= 2 and rng.random() < 0.8:
        i, j = rng.sample(range(n), 2)
        t = values[i] + values[j]  # at least one pair
    else:
        t = rng.randint(-2 * spread, 2 * spread)
    print(n, t)
    print(" ".join(map(str, values)))


main()
