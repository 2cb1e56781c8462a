"""Random test for sliding-window-max: python3 -P random.py SEED SIZE (SIZE 1..100).

n up to 200000 and a window w up to 500 (both at their maximum at SIZE=100). Values come
from a random range: tiny (many ties), non-positive, or the full range -10^9..10^9."""
import random
import sys

N_MAX = 200_000
W_MAX = 500


def main():
    seed, size = int(sys.argv[1]), int(sys.argv[2])
    size = max(1, min(100, size))
    rng = random.Random(seed)
    n_top = max(1, round(N_MAX * (size / 100) ** 2))
    n = n_top if size == 100 else rng.randint(1, n_top)
    w_top = max(1, min(n, round(W_MAX * size / 100)))
    w = w_top if size == 100 else rng.randint(1, w_top)
    lo, hi = rng.choice([(0, 3), (-10**9, 0), (-10**9, 10**9), (-50, 50)])
    values = [rng.randint(lo, hi) for _ in range(n)]
    print(n, w)
    print(" ".join(map(str, values)))


main()
