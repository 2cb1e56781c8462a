"""Random test for range-min-queries: python3 generators/random.py SEED SIZE (SIZE 1..100).

n and q are drawn from [0.8 * 80 * SIZE, 80 * SIZE]. Queries mix uniform ranges, single
elements, whole-array ranges and short ranges; the value range is drawn per test (a tiny range
gives many ties)."""
import random
import sys

STEP = 80  # SIZE=100: n, q up to 8000


def main():
    seed, size = int(sys.argv[1]), int(sys.argv[2])
    size = max(1, min(100, size))
    rng = random.Random(seed)
    top = STEP * size
    n = rng.randint(max(1, top * 4 // 5), top)
    q = rng.randint(max(1, top * 4 // 5), top)
    bound = rng.choice([3, 1000, 10**9, 10**9])
    low = rng.choice([-bound, -bound, 1])  # sometimes only positive values
    a = [rng.randint(low, bound) for _ in range(n)]
    out = [f"{n} {q}", " ".join(map(str, a))]
    for _ in range(q):
        kind = rng.random()
        if kind < 0.1:
            l = r = rng.randint(1, n)
        elif kind < 0.15:
            l, r = 1, n
        elif kind < 0.35:
            l = rng.randint(1, n)
            r = min(n, l + rng.randint(0, 10))
        else:
            l, r = sorted((rng.randint(1, n), rng.randint(1, n)))
        out.append(f"{l} {r}")
    sys.stdout.write("\n".join(out) + "\n")


if __name__ == "__main__":
    main()
