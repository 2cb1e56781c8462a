"""Random test for floor-sum: python3 random.py SEED SIZE (SIZE 1..100).

n is drawn from [N / 2, N] with N = 1500 * SIZE**2 (SIZE=100: N = 1.5 * 10**7), small
enough that a plain O(n) loop is correct but slow; a quarter of the time n is moved to a
perfect square or one below it, the boundaries where sqrt-block tricks go wrong."""

import math
import random
import sys


def main() -> None:
    seed, size = int(sys.argv[1]), int(sys.argv[2])
    size = max(1, min(100, size))
    rng = random.Random(seed)
    top = 1500 * size * size
    n = rng.randint(max(1, top // 2), top)
    if rng.random() < 0.25:
        k = math.isqrt(n)
        n = max(1, k * k - rng.randint(0, 1))
    print(n)


if __name__ == "__main__":
    main()
