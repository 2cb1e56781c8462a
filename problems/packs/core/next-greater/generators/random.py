"""Random test for next-greater: python3 generators/random.py SEED SIZE (SIZE 1..100)."""
import random
import sys

N_MAX = 8000


def main():
    seed, size = int(sys.argv[1]), int(sys.argv[2])
    size = max(1, min(100, size))
    rng = random.Random(seed)
    n = max(1, round(N_MAX * (size / 100) ** 1.5))
    shape = rng.choice(["uniform", "uniform", "walk", "mostly_down"])
    if shape == "uniform":
        # small spreads give many equal values (an equal value is never an answer)
        spread = rng.choice([0, 2, max(1, n // 10), n, 10**9])
        values = [rng.randint(-spread, spread) for _ in range(n)]
    elif shape == "walk":
        step = rng.choice([1, 3, 1000])
        x = rng.randint(-10**6, 10**6)
        values = []
        for _ in range(n):
            x += rng.randint(-step, step)
            values.append(x)
    else:
        # long descending stretches with occasional jumps up
        x = 10**9
        values = []
        for _ in range(n):
            if rng.random() < 0.02:
                x = rng.randint(x, 10**9)
            else:
                x = max(-10**9, x - rng.randint(0, 2 * 10**9 // (n + 1)))
            values.append(x)
    print(n)
    print(" ".join(map(str, values)))


main()
