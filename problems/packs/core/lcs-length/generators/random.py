"""Random test for lcs-length: python3 generators/random.py SEED SIZE (SIZE 1..100).

Alphabets from 2 to 26 letters; b is either independent of a or a mutated copy of a
(so the answer is large), and sometimes shorter than a."""
import random
import sys

N_MAX = 3000
LETTERS = "abcdefghijklmnopqrstuvwxyz"


def main():
    seed, size = int(sys.argv[1]), int(sys.argv[2])
    size = max(1, min(100, size))
    rng = random.Random(seed)
    n = max(1, round(N_MAX * (size / 100) ** 1.5))
    k = rng.choice([2, 3, 4, 10, 26])
    alphabet = LETTERS[:k] if rng.random() < 0.5 else "".join(rng.sample(LETTERS, k))
    a = [rng.choice(alphabet) for _ in range(n)]
    m = n if rng.random() < 0.5 else rng.randint(max(1, n // 2), n)
    if rng.random() < 0.5:
        b = [rng.choice(alphabet) for _ in range(m)]
    else:
        # a copy of a with about 15% of the positions replaced, then cut to length m
        b = [c if rng.random() < 0.85 else rng.choice(alphabet) for c in a]
        start = rng.randint(0, n - m)
        b = b[start:start + m]
    if rng.random() < 0.5:
        a, b = b, a
    print("".join(a))
    print("".join(b))


main()
