"""Adversarial test for palindrome-count: python3 generators/worst.py SEED SIZE (SIZE 1..100).

One letter repeated n times: every one of the n(n+1)/2 substrings is a palindrome, so
expanding around each centre never stops early and checking each substring compares it in
full; the answer is the largest possible.
"""
import random
import sys

N_MAX = 2500
LETTERS = "abcdefghijklmnopqrstuvwxyz"


def main():
    seed, size = int(sys.argv[1]), int(sys.argv[2])
    size = max(1, min(100, size))
    rng = random.Random(seed)
    n = max(1, round(N_MAX * (size / 100) ** 1.5))
    print(rng.choice(LETTERS) * n)


main()
