"""Random test for max-number: python3 -P generators/random.py SEED SIZE (SIZE 1..100)."""

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
    # all negative (a maximum that starts at 0 is wrong), all small, or the full range
    lo, hi = rng.choice([(-V_MAX, -1), (-9, 9), (0, 1000), (-V_MAX, V_MAX), (-V_MAX, V_MAX)])
    values = [rng.randint(lo, hi) for _ in range(n)]
    sys.stdout.write(f"{n}\n{' '.join(map(str, values))}\n")


if __name__ == "__main__":
    main()
