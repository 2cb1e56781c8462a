"""Adversarial test for divisor-count-sum: python3 -P generators/worst.py SEED SIZE (SIZE 1..100).

The most queries (2.5 * SIZE, rounded) and every query close to the largest value
N = 150000 * (SIZE / 100) ** 1.5, N itself included: a table built up to the largest query has
its full size and every per-query O(n) loop runs its longest. About a third of the queries sit
on a perfect square or a product k * (k + 1) (or one below), where a square root divisor counted
twice or a wrong correction term shows."""
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
    q = max(1, round(Q_MAX * size / 100))
    low = max(1, top - max(1, top // 100))
    k_top = math.isqrt(top)
    boundaries = sorted(
        {v for k in (k_top - 1, k_top) for v in (k * k, k * k - 1, k * (k + 1), k * (k + 1) - 1)
         if 1 <= v <= top}
    )
    queries = [top]
    while len(queries) < q:
        if boundaries and rng.random() < 0.35:
            queries.append(rng.choice(boundaries))
        else:
            queries.append(rng.randint(low, top))
    rng.shuffle(queries)
    sys.stdout.write(f"{q}\n" + "\n".join(map(str, queries)) + "\n")


main()
