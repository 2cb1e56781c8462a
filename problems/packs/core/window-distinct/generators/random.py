"""Random test for window-distinct: python3 generators/random.py SEED SIZE (SIZE 1..100)."""
import random
import sys

N_MAX = 7000


def main():
    seed, size = int(sys.argv[1]), int(sys.argv[2])
    size = max(1, min(100, size))
    rng = random.Random(seed)
    n = max(1, round(N_MAX * (size / 100) ** 1.5))
    k = rng.randint(1, n)
    # How many different values are around: from "all equal" to "almost all distinct".
    spread = rng.choice([0, 1, 3, max(1, n // 50), max(1, n // 5), n, 10**9])
    values = [rng.randint(-spread, spread) for _ in range(n)]
    print(n, k)
    print(" ".join(map(str, values)))


main()
