"""Random test for binomial-queries: python3 generators/random.py SEED SIZE (SIZE 1..100).

q grows linearly with SIZE (Q_MAX at 100) and n is drawn up to N_MAX * (SIZE / 100) ** 2.
Most queries have a uniform k; some are edge cases: k = 0, k = n, n = 0, n below 13
(where n! is still below the modulus) or n at the top of the range."""
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
    out = [str(q)]
    for _ in range(q):
        kind = rng.random()
        if kind < 0.03:
            n = rng.randint(0, 12)
            k = rng.randint(0, n)
        elif kind < 0.06:
            n = rng.randint(0, n_top)
            k = rng.choice([0, n])
        elif kind < 0.08:
            n = n_top
            k = rng.randint(0, n)
        elif kind < 0.09:
            n = k = 0
        else:
            n = rng.randint(0, n_top)
            k = rng.randint(0, n)
        out.append(f"{n} {k}")
    sys.stdout.write("\n".join(out) + "\n")


if __name__ == "__main__":
    main()
