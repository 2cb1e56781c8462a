"""Worst-case test for count-vowels: python3 -P generators/worst.py SEED SIZE (SIZE 1..100).

The longest text for the SIZE (5 * 10**6 characters at SIZE 100) of uniformly random letters in
words of 1 to 15 letters: the most characters for a loop to visit, about one vowel in five
(a count to update) and many consonants (every comparison of a chain of five is made)."""

import random
import sys

LENGTH_MAX = 5_000_000
LETTERS = "abcdefghijklmnopqrstuvwxyz"


def main() -> None:
    seed, size = int(sys.argv[1]), int(sys.argv[2])
    size = max(1, min(100, size))
    rng = random.Random(seed)
    length = max(1, round(LENGTH_MAX * (size / 100) ** 1.5))
    words, used = [], 0
    while used < length:
        k = min(rng.randint(1, 15), length - used)
        words.append("".join(rng.choices(LETTERS, k=k)))
        used += k + 1
    sys.stdout.write(" ".join(words) + "\n")


if __name__ == "__main__":
    main()
