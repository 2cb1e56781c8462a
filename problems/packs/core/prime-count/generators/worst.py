"""Adversarial test for prime-count: python3 worst.py SEED SIZE (SIZE 1..100).

n is the largest prime at most L - k, with L = 500 SIZE^2 and k < 100 chosen by the seed:
the sieve has its full size, trial division tests the most numbers, and n itself is prime,
so a program that counts the primes below n instead of up to n is one short."""
import random
import sys


def is_prime(k):
    if k < 2:
        return False
    d = 2
    while d * d <= k:
        if k % d == 0:
            return False
        d += 1
    return True


def main():
    seed, size = int(sys.argv[1]), int(sys.argv[2])
    size = max(1, min(100, size))
    rng = random.Random(seed)
    n = 500 * size * size - rng.randrange(100 if size > 1 else 1)
    while not is_prime(n):
        n -= 1
    print(n)


main()
