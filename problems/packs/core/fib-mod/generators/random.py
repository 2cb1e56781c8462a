"""Random test for fib-mod: python3 random.py SEED SIZE (SIZE 1..100).

n is drawn from [N / 2, N] with N = 1500 * SIZE**2 (SIZE=100: N = 1.5 * 10**7), small
enough that the step-by-step O(n) loop is correct but slow; now and then n is 0 or 1.
m is small, a prime near 10**9, exactly 10**9, or uniform in [2, 10**9]."""

import random
import sys


def main() -> None:
    seed, size = int(sys.argv[1]), int(sys.argv[2])
    size = max(1, min(100, size))
    rng = random.Random(seed)
    top = 1500 * size * size
    n = rng.randint(max(1, top // 2), top)
    if rng.random() < 0.05:
        n = rng.randint(0, 1)
    kind = rng.random()
    if kind < 0.2:
        m = rng.randint(2, 100)
    elif kind < 0.4:
        m = rng.choice([999999937, 998244353, 10**9 - 63, 999999999])
    elif kind < 0.5:
        m = 10**9
    else:
        m = rng.randint(2, 10**9)
    print(n, m)


if __name__ == "__main__":
    main()
