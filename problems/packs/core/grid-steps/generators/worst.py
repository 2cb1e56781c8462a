"""Adversarial test for grid-steps: python3 worst.py SEED SIZE (SIZE 1..100).

A serpentine maze on a square grid of side about 1.5 SIZE (odd): corridors one cell wide
separated by walls with a single gap at alternating ends, so the only path visits about
half of all cells and turns back on itself every corridor. Relaxation that sweeps the grid
until nothing changes needs a sweep per corridor; one BFS visits each cell once. The seed
picks horizontal or vertical corridors and whether the gaps sit exactly at the ends or one
cell in (leaving short dead ends)."""
import random
import sys


def main():
    seed, size = int(sys.argv[1]), int(sys.argv[2])
    size = max(1, min(100, size))
    rng = random.Random(seed)
    side = 1 + (13 * size) // 10
    if side % 2 == 0:
        side += 1
    vertical = rng.random() < 0.5
    inset = rng.choice((0, 1)) if side >= 5 else 0
    grid = [["." for _ in range(side)] for _ in range(side)]
    for k, r in enumerate(range(1, side, 2)):
        gap = side - 1 - inset if k % 2 == 0 else inset
        for c in range(side):
            if c != gap:
                grid[r][c] = "#"
    if vertical:  # transpose: corridors run top to bottom
        grid = [list(col) for col in zip(*grid)]
    grid[0][0] = "."
    grid[side - 1][side - 1] = "."
    print(side, side)
    print("\n".join("".join(row) for row in grid))


main()
