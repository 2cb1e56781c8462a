"""Worst-case test for big-sum: python3 worst.py SEED SIZE (SIZE 1..100).

The largest n for the SIZE, one number per line (the most lines to read), and every number
11 characters long (near -10**9 or 10**9), so the sum needs 64 bits."""

import random
import sys


def main() -> None:
    seed, size = int(sys.argv[1]), int(sys.argv[2])
    size = max(1, min(100, size))
    rng = random.Random(seed)
    n = max(1, 100 * size * size)  # SIZE=100: n = 10**6
    lo = 10**9 - 10**8
    out = [str(n)]
    for _ in range(n):
        value = rng.randint(lo, 10**9)
        out.append(str(-value if rng.random() < 0.3 else value))
    sys.stdout.write("\n".join(out) + "\n")


if __name__ == "__main__":
    main()
