"""Adversarial test for lcs-length: python3 generators/worst.py SEED SIZE (SIZE 1..100).

Two strings of the largest length for the SIZE over the two letters 'a' and 'b', uniformly
random. Every quadratic DP pays for all |a|*|b| cells; half of all position pairs match, so
match-list methods (Hunt-Szymanski) do about |a|*|b|/2 binary searches; and memoised
recursion still meets a large share of the states because mismatches are frequent.
"""
import random
import sys

N_MAX = 3000


def main():
    seed, size = int(sys.argv[1]), int(sys.argv[2])
    size = max(1, min(100, size))
    rng = random.Random(seed)
    n = max(1, round(N_MAX * (size / 100) ** 1.5))
    print("".join(rng.choice("ab") for _ in range(n)))
    print("".join(rng.choice("ab") for _ in range(n)))


main()
