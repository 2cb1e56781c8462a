"""Adversarial test for sort-numbers: python3 -P generators/worst.py SEED SIZE (SIZE 1..100).

n = 10**5 * (SIZE / 100) ** 1.5, all values wide (up to 11 characters, the most bytes to read
and write) and in nearly decreasing order: each new number belongs near the front of everything
read so far, so inserting into a sorted list moves almost the whole list every time, and the
small local shuffles keep the order from being a single reversed run."""
import random
import sys

N_MAX = 10**5
LIMIT = 10**9


def main():
    seed, size = int(sys.argv[1]), int(sys.argv[2])
    size = max(1, min(100, size))
    rng = random.Random(seed)
    n = max(1, round(N_MAX * (size / 100) ** 1.5))
    values = [rng.randint(LIMIT // 10, LIMIT) * rng.choice([1, 1, -1]) for _ in range(n)]
    values.sort(reverse=True)
    for start in range(0, n, 8):
        block = values[start:start + 8]
        rng.shuffle(block)
        values[start:start + 8] = block
    sys.stdout.write(f"{n}\n" + "\n".join(map(str, values)) + "\n")


main()
