"""Random test for max-subarray: python3 generators/random.py SEED SIZE (SIZE 1..100)."""
import random
import sys

N_MAX = 8000
V_MAX = 10**9


def main():
    seed, size = int(sys.argv[1]), int(sys.argv[2])
    size = max(1, min(100, size))
    rng = random.Random(seed)
    top = max(1, round(N_MAX * (size / 100) ** 1.5))
    n = rng.randint(max(1, top // 2), top)
    bound = rng.choice([1, 10, 1000, V_MAX, V_MAX])
    # the share of negative values decides whether the best stretch is long, short or one value
    negative_share = rng.choice([0.0, 0.3, 0.5, 0.5, 0.7, 1.0])
    values = []
    for _ in range(n):
        x = rng.randint(0, bound)
        values.append(-x if rng.random() < negative_share else x)
    print(n)
    print(" ".join(map(str, values)))


main()
