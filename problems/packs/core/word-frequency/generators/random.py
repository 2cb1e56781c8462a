"""Random test for word-frequency: python3 generators/random.py SEED SIZE (SIZE 1..100)."""
import random
import sys

M_MAX = 250_000
LETTERS = "abcdefghijklmnopqrstuvwxyz"


def make_vocabulary(rng, size, min_len, max_len):
    words = set()
    while len(words) < size:
        length = rng.randint(min_len, max_len)
        words.add("".join(rng.choices(LETTERS, k=length)))
    return sorted(words)


def main():
    seed, size = int(sys.argv[1]), int(sys.argv[2])
    size = max(1, min(100, size))
    rng = random.Random(seed)
    top = max(1, round(M_MAX * (size / 100) ** 1.5))
    m = rng.randint(max(1, top // 2), top)
    letters = rng.choice([1, 2, 3, 10, 10])
    min_len = 1 if letters < 10 else rng.randint(1, 5)
    capacity = sum(26 ** k for k in range(min_len, letters + 1))
    vocab_size = min(capacity, rng.choice([1, 2, 26, max(1, m // 100), max(1, m // 10), m]))
    vocab = make_vocabulary(rng, vocab_size, min_len, letters)
    rng.shuffle(vocab)
    # a skewed pick makes some words much more frequent than others
    skew = rng.choice([0.0, 1.0, 3.0])
    words = [vocab[int(len(vocab) * rng.random() ** (1 + skew))] for _ in range(m)]
    layout = rng.choice(["one_line", "one_per_line", "chunks"])
    out = [str(m)]
    if layout == "one_line":
        out.append(" ".join(words))
    elif layout == "one_per_line":
        out.extend(words)
    else:
        i = 0
        while i < m:
            k = rng.randint(1, 30)
            out.append(" ".join(words[i:i + k]))
            i += k
    sys.stdout.write("\n".join(out) + "\n")


main()
