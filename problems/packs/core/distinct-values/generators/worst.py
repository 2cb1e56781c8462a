"""Adversarial test for distinct-values: python3 generators/worst.py SEED SIZE (SIZE 1..100).

The largest n for the SIZE, all values different and long (nine digits), in random
order: the most lines to read, the largest set or dictionary to build, and nothing already
sorted for a sort to exploit.
"""
import random
import sys

N_MAX = 500_000
V_MAX = 10**9


def main():
    seed, size = int(sys.argv[1]), int(sys.argv[2])
    size = max(1, min(100, size))
    rng = random.Random(seed)
    n = max(1, round(N_MAX * (size / 100) ** 1.5))
    values = rng.sample(range(V_MAX // 10, V_MAX), n)
    sys.stdout.write(str(n) + "\n" + "\n".join(map(str, values)) + "\n")


main()
