"""Worst-case test for range-sum-queries: python3 worst.py SEED SIZE (SIZE 1..100).

n = q = 40 * SIZE, values near +-10**9 (answers need 64 bits), and every query spans the
whole array or nearly all of it, so summing each range element by element costs n * q."""

import random
import sys


def main() -> None:
    seed, size = int(sys.argv[1]), int(sys.argv[2])
    size = max(1, min(100, size))
    rng = random.Random(seed)
    n = q = 40 * size
    a = [rng.randint(9 * 10**8, 10**9) * (1 if rng.random() < 0.8 else -1) for _ in range(n)]
    out = [f"{n} {q}", " ".join(map(str, a))]
    for _ in range(q):
        if rng.random() < 0.5:
            l, r = 1, n
        else:
            l, r = rng.randint(1, min(n, 3)), rng.randint(max(1, n - 2), n)
        out.append(f"{l} {r}")
    sys.stdout.write("\n".join(out) + "\n")


if __name__ == "__main__":
    main()
