"""Adversarial test for knapsack-01: python3 generators/worst.py SEED SIZE (SIZE 1..100).

The largest n and capacity for the SIZE. Together the items weigh about twice the capacity,
so the capacity binds, and almost every weight up to the capacity is reachable by some subset.
Values are the weight times 10^6 plus a tiny bonus (less than 10^6 / n in total), so no
partial selection is dominated by another: solutions that keep only the useful (weight,
value) states keep all of them, and memoised recursion meets every (item, room) pair.
The best total value is far beyond 32 bits.
"""
import random
import sys

N_MAX = 100
W_MAX = 20000
SCALE = 10**6


def main():
    seed, size = int(sys.argv[1]), int(sys.argv[2])
    size = max(1, min(100, size))
    rng = random.Random(seed)
    n = max(1, round(N_MAX * (size / 100) ** 0.75))
    capacity = max(1, round(W_MAX * (size / 100) ** 0.75))
    mean = max(1, 2 * capacity // n)
    bonus = max(1, SCALE // n - 1)
    items = []
    for _ in range(n):
        w = rng.randint(max(1, mean // 2), max(1, 3 * mean // 2))
        w = min(w, capacity)
        items.append((w, w * SCALE + rng.randint(0, bonus - 1)))
    print(n, capacity)
    for w, v in items:
        print(w, v)


main()
