"""Worst-case test for even-count: python3 -P generators/worst.py SEED SIZE (SIZE 1..100).

The largest n for the SIZE, every number 9 or 10 digits long (the most characters to read
and convert), even and odd at random so that a loop's branch cannot be predicted."""

import random
import sys

N_MAX = 1_000_000
V_MAX = 10**9


def main() -> None:
    seed, size = int(sys.argv[1]), int(sys.argv[2])
    size = max(1, min(100, size))
    rng = random.Random(seed)
    n = max(1, round(N_MAX * (size / 100) ** 1.5))
    values = [rng.randint(10**8, V_MAX) for _ in range(n)]
    sys.stdout.write(f"{n}\n{' '.join(map(str, values))}\n")


if __name__ == "__main__":
    main()
