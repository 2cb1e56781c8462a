# 1D DP with capacities scanned upward: an item can then be added again and again (unbounded knapsack).
import sys

data = sys.stdin.buffer.read().split()
n, capacity = int(data[0]), int(data[1])
best = [0] * (capacity + 1)
for i in range(n):
    w, v = int(data[2 + 2 * i]), int(data[3 + 2 * i])
    for c in range(w, capacity + 1):
        if best[c - w] + v > best[c]:
            best[c] = best[c - w] + v
print(best[capacity])
