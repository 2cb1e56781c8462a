"""Random test for interval-union: python3 -P generators/random.py SEED SIZE (SIZE 1..100).

n is drawn from [N / 2, N] with N = 5000 * (SIZE / 100) ** 1.5; coordinates lie in [-B, B] with
B = 50 * SIZE. The shape is chosen by the seed: uniform endpoints, short stretches, nested
stretches, chains of stretches that touch end to start, or one stretch repeated."""
import random
import sys

N_MAX = 5000
B_MAX = 5000


def main():
    seed, size = int(sys.argv[1]), int(sys.argv[2])
    size = max(1, min(100, size))
    rng = random.Random(seed)
    top = max(1, round(N_MAX * (size / 100) ** 1.5))
    bound = max(10, round(B_MAX * size / 100))
    n = rng.randint(max(1, top // 2), top)
    shape = rng.choice(["uniform", "uniform", "short", "short", "nested", "chain", "repeat"])
    intervals = []
    if shape == "uniform":
        for _ in range(n):
            a, b = rng.randint(-bound, bound), rng.randint(-bound, bound)
            intervals.append((min(a, b), max(a, b)))
    elif shape == "short":
        for _ in range(n):
            l = rng.randint(-bound, bound)
            intervals.append((l, min(bound, l + rng.randint(0, 3))))
    elif shape == "nested":
        centers = [rng.randint(-bound, bound) for _ in range(rng.randint(1, 6))]
        for _ in range(n):
            c = rng.choice(centers)
            half = rng.randint(0, bound // 8)
            intervals.append((max(-bound, c - half), min(bound, c + half)))
    elif shape == "chain":
        x = -bound
        for _ in range(n):
            step = rng.randint(0, 4)
            if x + step > bound:
                x = rng.randint(-bound, bound - 4)
            intervals.append((x, x + step))
            x += step + (rng.random() < 0.2)  # sometimes a gap of one
        rng.shuffle(intervals)
    else:
        a, b = rng.randint(-bound, bound), rng.randint(-bound, bound)
        intervals = [(min(a, b), max(a, b))] * n
    sys.stdout.write(f"{n}\n" + "".join(f"{l} {r}\n" for l, r in intervals))


main()
