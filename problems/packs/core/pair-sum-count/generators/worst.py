"""Adversarial test for pair-sum-count: python3 generators/worst.py SEED SIZE (SIZE 1..100).

All values equal to v and t = 2v: every one of the n(n-1)/2 pairs matches (the most counting
for brute force; a two-pointer scan that moves one step per match is quadratic too).
"""
import random
import sys

N_MAX = 7000


def main():
    seed, size = int(sys.argv[1]), int(sys.argv[2])
    size = max(1, min(100, size))
    rng = random.Random(seed)
    n = max(1, round(N_MAX * (size / 100) ** 1.5))
    v = rng.randint(-10**9, 10**9)
    print(n, 2 * v)
    print(" ".join([str(v)] * n))


main()
