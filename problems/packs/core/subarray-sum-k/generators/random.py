"""Random test for subarray-sum-k: python3 generators/random.py SEED SIZE (SIZE 1..100).

n grows as N_MAX * (SIZE / 100) ** 1.5. The value range is drawn per test: tiny ranges give
many matching subarrays (and many equal prefix sums), wide ranges give big 64-bit sums.
k is usually the sum of a real subarray, sometimes 0, sometimes a value no subarray reaches."""
import random
import sys

N_MAX = 10000
V_MAX = 10**9


def main():
    seed, size = int(sys.argv[1]), int(sys.argv[2])
    size = max(1, min(100, size))
    rng = random.Random(seed)
    n = max(1, round(N_MAX * (size / 100) ** 1.5))
    bound = rng.choice([1, 2, 10, 1000, V_MAX])
    shift = rng.choice([0, 0, 0, bound // 2])  # sometimes mostly positive values
    a = [max(-V_MAX, min(V_MAX, rng.randint(-bound, bound) + shift)) for _ in range(n)]
    kind = rng.random()
    if kind < 0.6:
        l = rng.randint(0, n - 1)
        r = rng.randint(l, min(n - 1, l + rng.choice([0, 5, n])))
        k = sum(a[l:r + 1])
    elif kind < 0.8:
        k = 0
    else:
        k = rng.randint(-(10**15), 10**15)
    print(n, k)
    print(" ".join(map(str, a)))


main()
