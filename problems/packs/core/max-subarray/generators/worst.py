"""Adversarial test for max-subarray: python3 generators/worst.py SEED SIZE (SIZE 1..100).

The largest n for the SIZE with values of nearly the largest magnitude, 55% positive: the
best stretch is long and its sum is far beyond 32 bits, and the running sum keeps dipping
below zero on the way, so a solution that restarts on a negative sum is exercised as well.
Every solution that looks at all pairs of ends does the full n(n+1)/2 work.
"""
import random
import sys

N_MAX = 8000
V_MAX = 10**9


def main():
    seed, size = int(sys.argv[1]), int(sys.argv[2])
    size = max(1, min(100, size))
    rng = random.Random(seed)
    n = max(1, round(N_MAX * (size / 100) ** 1.5))
    values = []
    for _ in range(n):
        x = rng.randint(V_MAX - V_MAX // 10, V_MAX)
        values.append(x if rng.random() < 0.55 else -x)
    print(n)
    print(" ".join(map(str, values)))


main()
