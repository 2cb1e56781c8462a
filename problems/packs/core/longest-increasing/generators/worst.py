"""Adversarial test for longest-increasing: python3 worst.py SEED SIZE (SIZE 1..100).

A non-decreasing sequence: every element extends the best chain so far, which makes
quadratic DPs do the most updates and the patience piles grow to nearly n. About one
step in ten repeats the previous value, so a non-strict solution answers too much."""
import random
import sys


def main():
    seed, size = int(sys.argv[1]), int(sys.argv[2])
    size = max(1, min(100, size))
    rng = random.Random(seed)
    n = 35 * size
    x = rng.randint(-10**9, -10**9 + 1000)
    a = []
    for _ in range(n):
        a.append(x)
        x += 0 if rng.random() < 0.1 else rng.randint(1, 1000)
    print(n)
    print(" ".join(map(str, a)))


main()
