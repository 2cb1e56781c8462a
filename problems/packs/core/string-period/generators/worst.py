"""Adversarial test for string-period: python3 generators/worst.py SEED SIZE (SIZE 1..100).

One letter repeated n-1 times and then a different letter (like aaaa...ab). Every shift p
matches for n-p-1 positions and fails only at the very last letter, so trying every p with a
letter-by-letter comparison costs about n^2/2 steps; the answer is n.
"""
import random
import sys

N_MAX = 7000
LETTERS = "abcdefghijklmnopqrstuvwxyz"


def main():
    seed, size = int(sys.argv[1]), int(sys.argv[2])
    size = max(1, min(100, size))
    rng = random.Random(seed)
    n = max(1, round(N_MAX * (size / 100) ** 1.5))
    x, y = rng.sample(LETTERS, 2)
    print(x * (n - 1) + y if n > 1 else x)


main()
