"""Adversarial test for word-frequency: python3 generators/worst.py SEED SIZE (SIZE 1..100).

The largest m for the SIZE, one word per line (the most lines to read), long words (8 to 10
letters), and a huge vocabulary: most words occur once or twice, and a dozen words share the
highest count, so the tie has to be broken by comparing words.
"""
import random
import sys

M_MAX = 250_000
LETTERS = "abcdefghijklmnopqrstuvwxyz"
TIED = 12
TOP = 4


def main():
    seed, size = int(sys.argv[1]), int(sys.argv[2])
    size = max(1, min(100, size))
    rng = random.Random(seed)
    m = max(1, round(M_MAX * (size / 100) ** 1.5))
    vocab = {}  # a dict keeps insertion order, so the result does not depend on hashing
    while len(vocab) < m:
        need = m - len(vocab)
        pool = "".join(rng.choices(LETTERS, k=10 * need))
        lengths = rng.choices((8, 9, 10), k=need)
        pos = 0
        for length in lengths:
            vocab[pool[pos:pos + length]] = None
            pos += length
    vocab = list(vocab)[:m]
    words = []
    tied = min(TIED, max(1, m // TOP))
    for w in vocab[:tied]:
        words.extend([w] * TOP)
    k = tied
    while len(words) < m:
        repeat = min(rng.choice([1, 1, 1, 2, 3]), m - len(words))
        words.extend([vocab[k]] * repeat)
        k += 1
    words = words[:m]
    rng.shuffle(words)
    sys.stdout.write(str(m) + "\n" + "\n".join(words) + "\n")


main()
