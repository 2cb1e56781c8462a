"""Random test for sort-numbers: python3 -P generators/random.py SEED SIZE (SIZE 1..100).

n is drawn from [N / 2, N] with N = 10**5 * (SIZE / 100) ** 1.5. The shape is chosen by the seed:
uniform over the whole range, small values with many repeats (where counting sort pays off),
a handful of distinct values, already sorted, or reversed."""
import random
import sys

N_MAX = 10**5
LIMIT = 10**9


def main():
    seed, size = int(sys.argv[1]), int(sys.argv[2])
    size = max(1, min(100, size))
    rng = random.Random(seed)
    top = max(1, round(N_MAX * (size / 100) ** 1.5))
    n = rng.randint(max(1, top // 2), top)
    shape = rng.choice(["uniform", "uniform", "small", "small", "few", "sorted", "reversed"])
    if shape == "small":
        bound = rng.choice([3, 100, 1000])
        values = [rng.randint(-bound, bound) for _ in range(n)]
    elif shape == "few":
        pool = [rng.randint(-LIMIT, LIMIT) for _ in range(rng.randint(1, 5))]
        values = [rng.choice(pool) for _ in range(n)]
    else:
        values = [rng.randint(-LIMIT, LIMIT) for _ in range(n)]
        if shape == "sorted":
            values.sort()
        elif shape == "reversed":
            values.sort(reverse=True)
    sys.stdout.write(f"{n}\n" + "\n".join(map(str, values)) + "\n")


main()
