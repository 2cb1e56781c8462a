"""Random test for divisor-count-sum: python3 -P generators/random.py SEED SIZE (SIZE 1..100).

The largest query is N = 150000 * (SIZE / 100) ** 1.5 and there are up to
2.5 * SIZE queries (rounded).
Queries are a mix of uniform values in [1, N], small values, repeats, and values next to a
perfect square or a product k * (k + 1), the boundaries where sqrt-based formulas slip."""
import math
import random
import sys

N_MAX = 150000
Q_MAX = 250


def main():
    seed, size = int(sys.argv[1]), int(sys.argv[2])
    size = max(1, min(100, size))
    rng = random.Random(seed)
    top = max(1, round(N_MAX * (size / 100) ** 1.5))
    q_top = max(1, round(Q_MAX * size / 100))
    q = rng.randint(max(1, q_top // 2), q_top)
    queries = []
    for _ in range(q):
        kind = rng.random()
        if kind < 0.5 or not queries:
            n = rng.randint(1, top)
        elif kind < 0.65:
            n = rng.randint(1, min(top, 30))
        elif kind < 0.75:
            n = rng.choice(queries)
        else:
            k = rng.randint(1, math.isqrt(top))
            n = rng.choice([k * k, k * k - 1, k * (k + 1), k * (k + 1) - 1])
            n = max(1, min(top, n))
        queries.append(n)
    sys.stdout.write(f"{q}\n" + "\n".join(map(str, queries)) + "\n")


main()
