"""Adversarial test for running-median: python3 generators/worst.py SEED SIZE (SIZE 1..100).

Distinct values in strictly descending order: every new value is the smallest so far, so an
insertion into a sorted list always lands at the front (the most shifting), and the two heaps
of the heap solution need a rebalance at every other step.
"""
import random
import sys

N_MAX = 6000


def main():
    seed, size = int(sys.argv[1]), int(sys.argv[2])
    size = max(1, min(100, size))
    rng = random.Random(seed)
    n = max(1, round(N_MAX * (size / 100) ** 1.5))
    values = sorted(rng.sample(range(-10**9, 10**9 + 1), n), reverse=True)
    print(n)
    print(" ".join(map(str, values)))


main()
