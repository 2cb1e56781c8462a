"""Adversarial test for digit-sum-total: python3 generators/worst.py SEED SIZE (SIZE 1..100).

The most queries (q = 5), all with n at or just below the top of the range for the SIZE, so
anything that walks through 1..n once per query does the most work."""
import random
import sys

N_MAX = 500000
Q = 5


def main():
    seed, size = int(sys.argv[1]), int(sys.argv[2])
    size = max(1, min(100, size))
    rng = random.Random(seed)
    top = max(9, round(N_MAX * (size / 100) ** 2))
    values = [top] + [rng.randint(top - top // 100, top) for _ in range(Q - 1)]
    print(Q)
    print("\n".join(map(str, values)))


main()
