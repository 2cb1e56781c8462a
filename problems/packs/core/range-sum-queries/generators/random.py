"""Random test for range-sum-queries: python3 random.py SEED SIZE (SIZE 1..100).

n and q are drawn from [0.8 * 60 * SIZE, 60 * SIZE]; ranges are uniform, with some single
elements and some whole-array queries mixed in."""

import random
import sys


def main() -> None:
    seed, size = int(sys.argv[1]), int(sys.argv[2])
    size = max(1, min(100, size))
    rng = random.Random(seed)
    top = 60 * size
    n = rng.randint(max(1, top * 4 // 5), top)
    q = rng.randint(max(1, top * 4 // 5), top)
    bound = rng.choice([10, 10**6, 10**9, 10**9])
    a = [rng.randint(-bound, bound) for _ in range(n)]
    for i in range(n):
        if rng.random() < 0.05:
            a[i] = 0
    out = [f"{n} {q}", " ".join(map(str, a))]
    for _ in range(q):
        kind = rng.random()
        if kind < 0.1:
            l = r = rng.randint(1, n)
        elif kind < 0.15:
            l, r = 1, n
        else:
            l, r = sorted((rng.randint(1, n), rng.randint(1, n)))
        out.append(f"{l} {r}")
    sys.stdout.write("\n".join(out) + "\n")


if __name__ == "__main__":
    main()
