"""Random test for prime-count: python3 random.py SEED SIZE (SIZE 1..100).

n is drawn from [L/2, L] with L = 500 SIZE^2 (5,000,000 at SIZE 100); at SIZE 1 it is
tiny, 0 to 12, so the cases n < 2 come up."""
import random
import sys


def main():
    seed, size = int(sys.argv[1]), int(sys.argv[2])
    size = max(1, min(100, size))
    rng = random.Random(seed)
    if size == 1:
        n = rng.randint(0, 12)
    else:
        limit = 500 * size * size
        n = rng.randint(limit // 2, limit)
    print(n)


main()
