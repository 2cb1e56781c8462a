"""Random test for count-occurrences: python3 random.py SEED SIZE (SIZE 1..100).

Text of up to 10,000 SIZE letters over a small alphabet (so patterns recur) or all 26
letters; the pattern is usually cut from the text, sometimes random, and now and then
longer than the text."""
import random
import string
import sys


def main():
    seed, size = int(sys.argv[1]), int(sys.argv[2])
    size = max(1, min(100, size))
    rng = random.Random(seed)
    limit = 10 if size == 1 else 10_000 * size
    n = rng.randint(max(1, limit // 2), limit)
    letters = string.ascii_lowercase[: rng.choice((1, 2, 2, 3, 4, 26))]
    text = "".join(rng.choice(letters) for _ in range(n))
    kind = rng.random()
    if kind < 0.1:  # longer than the text: no occurrence
        text = text[: 10**6 - 5]  # both stay within 10^6 letters
        n = len(text)
        m = n + rng.randint(1, 5)
        pattern = "".join(rng.choice(letters) for _ in range(m))
    elif kind < 0.7:  # a piece of the text: at least one occurrence
        m = rng.randint(1, min(n, 12))
        start = rng.randrange(n - m + 1)
        pattern = text[start:start + m]
    else:
        m = rng.randint(1, min(n, 8))
        pattern = "".join(rng.choice(letters) for _ in range(m))
    print(text)
    print(pattern)


main()
