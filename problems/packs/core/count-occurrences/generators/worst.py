"""Adversarial test for count-occurrences: python3 worst.py SEED SIZE (SIZE 1..100).

Highly repetitive text of 10,000 SIZE letters and a pattern of 10 letters that matches
almost everywhere for its first 9 letters, so comparing letter by letter does the full
pattern length at every position. The seed picks one of three shapes:
  a...a with a...ab (no occurrence), a...a with a...a (an occurrence at every position),
  abab... with ababababa (an occurrence at every other position)."""
import random
import sys


def main():
    seed, size = int(sys.argv[1]), int(sys.argv[2])
    size = max(1, min(100, size))
    rng = random.Random(seed)
    n = 10 if size == 1 else 10_000 * size
    m = min(10, n)
    shape = rng.randrange(3)
    if shape == 0:
        text, pattern = "a" * n, "a" * (m - 1) + "b"
    elif shape == 1:
        text, pattern = "a" * n, "a" * m
    else:
        text, pattern = ("ab" * n)[:n], ("ab" * m)[: max(1, m - 1)]
    print(text)
    print(pattern)


main()
