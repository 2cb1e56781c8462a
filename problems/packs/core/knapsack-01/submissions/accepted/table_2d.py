# Textbook 2D table best[i][c] over items and capacities, filled with nested loops: O(n*W) time and memory.
import sys


def main():
    data = sys.stdin.read().split()
    n, capacity = int(data[0]), int(data[1])
    weights = [int(x) for x in data[2:2 + 2 * n:2]]
    values = [int(x) for x in data[3:3 + 2 * n:2]]
    best = [[0] * (capacity + 1) for _ in range(n + 1)]
    for i in range(1, n + 1):
        w, v = weights[i - 1], values[i - 1]
        prev, row = best[i - 1], best[i]
        for c in range(capacity + 1):
            if c >= w and prev[c - w] + v > prev[c]:
                row[c] = prev[c - w] + v
            else:
                row[c] = prev[c]
    print(best[n][capacity])


main()
