"""Adversarial test for next-greater: python3 generators/worst.py SEED SIZE (SIZE 1..100).

A non-increasing sequence with runs of equal values: no element has a strictly greater one to
its right, so every answer is -1 and a scan to the right always runs to the end of the array
(n(n-1)/2 comparisons for the double loop); the ties catch a >= in place of >.
"""
import random
import sys

N_MAX = 8000


def main():
    seed, size = int(sys.argv[1]), int(sys.argv[2])
    size = max(1, min(100, size))
    rng = random.Random(seed)
    n = max(1, round(N_MAX * (size / 100) ** 1.5))
    distinct = max(1, n // 3)
    pool = rng.sample(range(-10**9, 10**9 + 1), distinct)
    values = sorted((rng.choice(pool) for _ in range(n)), reverse=True)
    print(n)
    print(" ".join(map(str, values)))


main()
