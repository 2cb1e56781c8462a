"""Random test for digit-sum-total: python3 generators/random.py SEED SIZE (SIZE 1..100).

q = 5 queries with n up to N_MAX * (SIZE / 100) ** 2: uniform values mixed with shapes that
stress carries in a digit formula (powers of ten, runs of nines, the top of the range)."""
import random
import sys

N_MAX = 500000
Q = 5


def main():
    seed, size = int(sys.argv[1]), int(sys.argv[2])
    size = max(1, min(100, size))
    rng = random.Random(seed)
    top = max(9, round(N_MAX * (size / 100) ** 2))
    powers = [10**e for e in range(1, 7) if 10**e <= top]
    values = []
    for _ in range(Q):
        kind = rng.random()
        if kind < 0.15 and powers:
            n = rng.choice(powers)
        elif kind < 0.3 and powers:
            n = rng.choice(powers) - 1
        elif kind < 0.4:
            n = top
        elif kind < 0.5:
            n = rng.randint(1, 99)
        else:
            n = rng.randint(1, top)
        values.append(n)
    print(Q)
    print("\n".join(map(str, values)))


main()
