"""Worst-case test for range-min-queries: python3 generators/worst.py SEED SIZE (SIZE 1..100).

n = q = 80 * SIZE. The values decrease towards the middle and the minimum sits far from both
ends of each range, and every query spans the whole array or nearly all of it, so scanning
each range element by element costs about n * q."""
import random
import sys

STEP = 80  # SIZE=100: n = q = 8000


def main():
    seed, size = int(sys.argv[1]), int(sys.argv[2])
    size = max(1, min(100, size))
    rng = random.Random(seed)
    n = q = STEP * size
    mid = n // 2
    # a valley: a scan finds a new running minimum again and again on the way in
    a = [-(10**9) + abs(i - mid) * 1000 + rng.randint(0, 999) for i in range(n)]
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
