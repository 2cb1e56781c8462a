"""Adversarial test for window-distinct: python3 generators/worst.py SEED SIZE (SIZE 1..100).

All values distinct (every window is as large a set as possible, every slide changes the
counter) and k = n/2, which maximises the (n-k+1)*k work of rebuilding a set per window.
"""
import random
import sys

N_MAX = 7000


def main():
    seed, size = int(sys.argv[1]), int(sys.argv[2])
    size = max(1, min(100, size))
    rng = random.Random(seed)
    n = max(1, round(N_MAX * (size / 100) ** 1.5))
    k = max(1, n // 2)
    values = rng.sample(range(-10**9, 10**9 + 1), n)
    print(n, k)
    print(" ".join(map(str, values)))


main()
