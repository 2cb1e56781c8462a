"""Adversarial test for subarray-sum-k: python3 generators/worst.py SEED SIZE (SIZE 1..100).

The largest n for the SIZE and k = 0. Values are mostly 0 and the nonzero ones alternate
+v, -v, so the prefix sums take only two values: about half of the n(n+1)/2 subarrays match.
A brute force takes its counting branch nearly every time, and anything that counts the
matches one by one instead of in bulk is quadratic."""
import random
import sys

N_MAX = 10000


def main():
    seed, size = int(sys.argv[1]), int(sys.argv[2])
    size = max(1, min(100, size))
    rng = random.Random(seed)
    n = max(1, round(N_MAX * (size / 100) ** 1.5))
    v = rng.choice([1, 7, 10**9])
    a = []
    sign = 1
    for _ in range(n):
        if rng.random() < 0.3:
            a.append(sign * v)
            sign = -sign
        else:
            a.append(0)
    print(n, 0)
    print(" ".join(map(str, a)))


main()
