"""Worst-case test for fib-mod: python3 worst.py SEED SIZE (SIZE 1..100).

n grows geometrically with SIZE up to the constraint: the largest 2**k - 1 (every bit set, the
most work for binary methods) not above 10**(18 * SIZE / 100). SIZE=100 gives n = 2**59 - 1,
about 5.8 * 10**17 (only O(log n) methods finish); SIZE=35 gives about 10**6.
m is near the top of its range, so products of residues reach 10**18."""

import random
import sys


def main() -> None:
    seed, size = int(sys.argv[1]), int(sys.argv[2])
    size = max(1, min(100, size))
    rng = random.Random(seed)
    target = min(10**18, round(10 ** (18 * size / 100)))
    n = (1 << ((target + 1).bit_length() - 1)) - 1
    m = rng.choice([10**9, 999999937, 999999999])
    print(n, m)


if __name__ == "__main__":
    main()
