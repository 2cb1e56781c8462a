"""Adversarial test for coin-change-ways: python3 -P worst.py SEED SIZE (SIZE 1..100).

The most coins (k = 50 at SIZE=100) and the largest amount (A = 20000), all coins small and
the coin 1 listed first: every (coin, amount) pair is a reachable state of the top-down
recursion, every coin sweeps almost the whole amount range in the table DPs, and the counts
wrap around the modulus many times."""
import random
import sys

K_MAX = 50
A_MAX = 20000


def main():
    seed, size = int(sys.argv[1]), int(sys.argv[2])
    size = max(1, min(100, size))
    rng = random.Random(seed)
    k = max(1, round(K_MAX * size / 100))
    amount = max(1, round(A_MAX * size / 100))
    rest = rng.sample(range(2, 3 * k + 2), k - 1)
    coins = [1] + rest
    print(k, amount)
    print(" ".join(map(str, coins)))


main()
