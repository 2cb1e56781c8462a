"""Adversarial test for interval-union: python3 -P generators/worst.py SEED SIZE (SIZE 1..100).

n = 5000 * (SIZE / 100) ** 1.5, coordinates in [-B, B] with B = 50 * SIZE. One zone covers about
80% of the line, placed at random, with free space on both sides. The first quarter of the
stretches are tiny and pairwise disjoint, in the free space (many separate pieces for a program
that keeps a list of merged pieces); the other three quarters are long, each covering most of the
zone, so the sum of the lengths is about 1.1 * n * B and marking every covered unit one by one is
as slow as it gets."""
import random
import sys

N_MAX = 5000
B_MAX = 5000


def main():
    seed, size = int(sys.argv[1]), int(sys.argv[2])
    size = max(1, min(100, size))
    rng = random.Random(seed)
    n = max(1, round(N_MAX * (size / 100) ** 1.5))
    bound = max(10, round(B_MAX * size / 100))
    span = 2 * bound
    zone_len = span * 4 // 5
    zl = -bound + rng.randint(0, span - zone_len)
    zr = zl + zone_len
    # positions outside the zone for tiny disjoint stretches [p, p] or [p, p + 1]
    free = list(range(-bound, zl - 1, 2)) + list(range(zr + 1, bound, 2))
    short_count = min(n // 4, len(free))
    shorts = [(p, p + rng.randint(0, 1)) for p in rng.sample(free, short_count)]
    slack = max(1, zone_len // 20)
    longs = [(zl + rng.randint(0, slack), zr - rng.randint(0, slack)) for _ in range(n - short_count)]
    intervals = shorts + longs
    sys.stdout.write(f"{n}\n" + "".join(f"{l} {r}\n" for l, r in intervals))


main()
