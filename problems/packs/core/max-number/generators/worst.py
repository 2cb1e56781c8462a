"""Worst-case test for max-number: python3 -P generators/worst.py SEED SIZE (SIZE 1..100).

The largest n for the SIZE, every number 10 or 11 characters long (near -10**9 or 10**9):
the most characters to read and convert. The order is random, so a sort does its full
O(n log n) work and the largest number can be anywhere."""

import random
import sys

N_MAX = 1_000_000
V_MAX = 10**9


def main() -> None:
    seed, size = int(sys.argv[1]), int(sys.argv[2])
    size = max(1, min(100, size))
    rng = random.Random(seed)
    n = max(1, round(N_MAX * (size / 100) ** 1.5))
    low = V_MAX - 10**8
    values = []
    for _ in range(n):
        value = rng.randint(low, V_MAX)
        values.append(-value if rng.random() < 0.3 else value)
    sys.stdout.write(f"{n}\n{' '.join(map(str, values))}\n")


if __name__ == "__main__":
    main()
