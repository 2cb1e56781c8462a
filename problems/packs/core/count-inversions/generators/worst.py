"""Adversarial test for count-inversions: python3 generators/worst.py SEED SIZE (SIZE 1..100).

Distinct values in strictly descending order: every pair is an inversion (n(n-1)/2 of them),
the most expensive shape for brute force and for insertion into a sorted list at the front.
"""
import random
import sys

N_MAX = 8000


def main():
    seed, size = int(sys.argv[1]), int(sys.argv[2])
    size = max(1, min(100, size))
    rng = random.Random(seed)
    n = max(1, round(N_MAX * (size / 100) ** 1.5))
    values = sorted(rng.sample(range(-10**9, 10**9 + 1), n), reverse=True)
    print(n)
    print(" ".join(map(str, values)))


main()
