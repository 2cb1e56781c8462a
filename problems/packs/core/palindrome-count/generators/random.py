"""Random test for palindrome-count: python3 generators/random.py SEED SIZE (SIZE 1..100)."""
import random
import sys

N_MAX = 2500
LETTERS = "abcdefghijklmnopqrstuvwxyz"


def main():
    seed, size = int(sys.argv[1]), int(sys.argv[2])
    size = max(1, min(100, size))
    rng = random.Random(seed)
    n = max(1, round(N_MAX * (size / 100) ** 1.5))
    alphabet = LETTERS[: rng.choice([1, 2, 3, 26])]
    shape = rng.choice(["random", "runs", "mirrored_pieces", "periodic"])
    if shape == "random":
        s = "".join(rng.choice(alphabet) for _ in range(n))
    elif shape == "runs":
        # runs of one letter: many even and odd palindromes inside each run
        parts = []
        total = 0
        while total < n:
            k = rng.randint(1, max(1, n // rng.choice([2, 10, 100])))
            parts.append(rng.choice(alphabet) * k)
            total += k
        s = "".join(parts)[:n]
    elif shape == "mirrored_pieces":
        # pieces that are palindromes of odd or even length, glued together
        parts = []
        total = 0
        while total < n:
            half = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, max(1, n // 8))))
            middle = rng.choice(["", rng.choice(alphabet)])
            piece = half + middle + half[::-1] or rng.choice(alphabet)
            parts.append(piece)
            total += len(piece)
        s = "".join(parts)[:n]
    else:
        block = "".join(rng.choice(alphabet) for _ in range(rng.randint(1, 6)))
        s = (block * (n // len(block) + 1))[:n]
    print(s)


main()
