"""Random test for count-vowels: python3 -P generators/random.py SEED SIZE (SIZE 1..100)."""

import random
import sys

LENGTH_MAX = 5_000_000
LETTERS = "abcdefghijklmnopqrstuvwxyz"
VOWELS = "aeiou"
CONSONANTS = "bcdfghjklmnpqrstvwxyz"


def main() -> None:
    seed, size = int(sys.argv[1]), int(sys.argv[2])
    size = max(1, min(100, size))
    rng = random.Random(seed)
    top = max(1, round(LENGTH_MAX * (size / 100) ** 1.5))  # SIZE=100: up to 5 * 10**6 characters
    length = rng.randint(max(1, top // 2), top)
    # letters: uniform, vowels only, no vowels (but "y"), or mostly vowels
    alphabet = rng.choice([LETTERS, LETTERS, VOWELS, CONSONANTS, VOWELS * 4 + "yb"])
    longest_word = rng.choice([1, 5, 12, 40])
    words, used = [], 0
    while used < length:
        k = min(rng.randint(1, longest_word), length - used)
        words.append("".join(rng.choices(alphabet, k=k)))
        used += k + 1
    sys.stdout.write(" ".join(words) + "\n")


if __name__ == "__main__":
    main()
