"""Random test for knapsack-01: python3 generators/random.py SEED SIZE (SIZE 1..100)."""
import random
import sys

N_MAX = 100
W_MAX = 20000
V_MAX = 10**9


def main():
    seed, size = int(sys.argv[1]), int(sys.argv[2])
    size = max(1, min(100, size))
    rng = random.Random(seed)
    n_top = max(1, round(N_MAX * (size / 100) ** 0.75))
    w_top = max(1, round(W_MAX * (size / 100) ** 0.75))
    n = rng.randint(max(1, n_top // 2), n_top)
    capacity = rng.randint(max(1, w_top // 2), w_top)
    # heavy items rarely fit; light ones mostly do; "mixed" spans both
    shape = rng.choice(["light", "mixed", "heavy", "correlated"])
    items = []
    for _ in range(n):
        if shape == "light":
            w = rng.randint(1, max(1, 4 * capacity // n))
        elif shape == "heavy":
            w = rng.randint(max(1, capacity // 3), capacity)
        else:
            w = rng.randint(1, capacity)
        if shape == "correlated":
            v = min(V_MAX, w * rng.randint(1000, 1100))
        else:
            v = rng.randint(1, rng.choice([10, 1000, V_MAX]))
        items.append((w, v))
    print(n, capacity)
    for w, v in items:
        print(w, v)


main()
