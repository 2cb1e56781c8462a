"""Random test for even-count: python3 -P generators/random.py SEED SIZE (SIZE 1..100)."""

import random
import sys

N_MAX = 1_000_000
V_MAX = 10**9


def main() -> None:
    seed, size = int(sys.argv[1]), int(sys.argv[2])
    size = max(1, min(100, size))
    rng = random.Random(seed)
    top = max(1, round(N_MAX * (size / 100) ** 1.5))  # SIZE=100: n up to 10**6
    n = rng.randint(max(1, top // 2), top)
    hi = rng.choice([1, 9, 1000, V_MAX, V_MAX])
    # the share of even numbers: none, all, or anything between
    even_share = rng.choice([0.0, 1.0, 0.5, rng.random()])
    values = []
    for _ in range(n):
        value = rng.randint(0, hi)
        if (value % 2 == 0) != (rng.random() < even_share):
            value = value + 1 if value < hi else value - 1  # flip the parity, stay in range
        values.append(value)
    sys.stdout.write(f"{n}\n{' '.join(map(str, values))}\n")


if __name__ == "__main__":
    main()
