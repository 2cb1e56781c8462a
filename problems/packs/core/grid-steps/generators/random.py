"""Random test for grid-steps: python3 random.py SEED SIZE (SIZE 1..100).

A grid of up to about (1.3 SIZE)^2 cells with a random share of walls (5% to 40%), so that
some tests are wide open and some have no path at all. Start and goal are always open."""
import random
import sys


def main():
    seed, size = int(sys.argv[1]), int(sys.argv[2])
    size = max(1, min(100, size))
    rng = random.Random(seed)
    side = 1 + (13 * size) // 10
    if size == 1:
        rows, cols = rng.randint(1, 3), rng.randint(1, 3)
    else:
        rows, cols = rng.randint(side // 2, side), rng.randint(side // 2, side)
    density = rng.uniform(0.05, 0.40)
    grid = [["#" if rng.random() < density else "." for _ in range(cols)] for _ in range(rows)]
    grid[0][0] = "."
    grid[rows - 1][cols - 1] = "."
    print(rows, cols)
    print("\n".join("".join(row) for row in grid))


main()
