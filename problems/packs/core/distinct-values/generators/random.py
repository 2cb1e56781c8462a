"""Random test for distinct-values: python3 generators/random.py SEED SIZE (SIZE 1..100)."""
import random
import sys

N_MAX = 500_000
V_MAX = 10**9


def main():
    seed, size = int(sys.argv[1]), int(sys.argv[2])
    size = max(1, min(100, size))
    rng = random.Random(seed)
    top = max(1, round(N_MAX * (size / 100) ** 1.5))
    n = rng.randint(max(1, top // 2), top)
    # the value range decides how many duplicates there are
    hi = rng.choice([1, 10, max(1, n // 4), n, 10 * n, V_MAX, V_MAX])
    lo = rng.choice([0, V_MAX - hi])
    values = [rng.randint(lo, lo + hi) for _ in range(n)]
    sys.stdout.write(str(n) + "\n" + "\n".join(map(str, values)) + "\n")


main()
