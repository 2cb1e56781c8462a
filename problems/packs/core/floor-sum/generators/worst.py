"""Worst-case test for floor-sum: python3 worst.py SEED SIZE (SIZE 1..100).

n grows geometrically with SIZE up to the constraint: about 10**(12 * SIZE / 100), so
SIZE=100 gives n near 10**12 (only O(sqrt n) methods finish; SIZE=50 gives about 10**6).
n is set to a boundary shape for sqrt-decomposition: k*k, k*k - 1, k*(k+1) or k*(k+1) - 1."""

import math
import random
import sys


def main() -> None:
    seed, size = int(sys.argv[1]), int(sys.argv[2])
    size = max(1, min(100, size))
    rng = random.Random(seed)
    target = min(10**12, round(10 ** (12 * size / 100)))
    k = math.isqrt(target)
    shapes = [k * k, k * k - 1, k * (k + 1), k * (k + 1) - 1]
    n = rng.choice([s for s in shapes if 1 <= s <= target] or [1])
    print(n)


if __name__ == "__main__":
    main()
