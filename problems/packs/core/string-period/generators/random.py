"""Random test for string-period: python3 generators/random.py SEED SIZE (SIZE 1..100)."""
import random
import sys

N_MAX = 7000
LETTERS = "abcdefghijklmnopqrstuvwxyz"


def random_word(rng, length, alphabet):
    return "".join(rng.choice(alphabet) for _ in range(length))


def main():
    seed, size = int(sys.argv[1]), int(sys.argv[2])
    size = max(1, min(100, size))
    rng = random.Random(seed)
    n = max(1, round(N_MAX * (size / 100) ** 1.5))
    alphabet = LETTERS[: rng.choice([1, 2, 2, 3, 26])]
    shape = rng.choice(["random", "periodic", "periodic", "broken_periodic", "fibonacci"])
    if shape == "random":
        s = random_word(rng, n, alphabet)
    elif shape in ("periodic", "broken_periodic"):
        # a block repeated (the period need not divide n), maybe with one letter changed
        block = random_word(rng, rng.randint(1, max(1, n // rng.choice([1, 2, 5, 50]))), alphabet)
        s = list((block * (n // len(block) + 1))[:n])
        if shape == "broken_periodic":
            i = rng.randrange(n)
            s[i] = rng.choice([c for c in LETTERS[:3] if c != s[i]])
        s = "".join(s)
    else:
        # Fibonacci word over two random letters: long borders of irregular lengths
        x, y = rng.sample(LETTERS, 2)
        prev, cur = x, x + y
        while len(cur) < n:
            prev, cur = cur, cur + prev
        s = cur[:n]
    print(s)


main()
