"""Worst-case test for binomial-queries: python3 generators/worst.py SEED SIZE (SIZE 1..100).

The most queries for the SIZE, every n close to the top of the range (so the factorial tables
must reach it) and k near n / 2 (the most work for anything that multiplies k terms, and the
largest exact binomials for big-integer arithmetic)."""
import random
import sys

N_MAX = 10**6
Q_MAX = 150000


def main():
    seed, size = int(sys.argv[1]), int(sys.argv[2])
    size = max(1, min(100, size))
    rng = random.Random(seed)
    n_top = max(20, round(N_MAX * (size / 100) ** 2))
    q = max(1, round(Q_MAX * size / 100))
    out = [str(q), f"{n_top} {n_top // 2}"]
    for _ in range(q - 1):
        n = rng.randint(n_top - n_top // 100, n_top)
        k = rng.randint(n // 2 - n // 20, n // 2 + n // 20)
        out.append(f"{n} {k}")
    sys.stdout.write("\n".join(out) + "\n")


if __name__ == "__main__":
    main()
