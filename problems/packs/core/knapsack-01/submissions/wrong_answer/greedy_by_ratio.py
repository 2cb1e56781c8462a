# Greedy: take items by value per unit of weight while they fit. Not optimal for 0/1 knapsack.
import sys

data = sys.stdin.read().split()
n, capacity = int(data[0]), int(data[1])
items = [(int(data[2 + 2 * i]), int(data[3 + 2 * i])) for i in range(n)]
items.sort(key=lambda wv: wv[1] / wv[0], reverse=True)
room, total = capacity, 0
for w, v in items:
    if w <= room:
        room -= w
        total += v
print(total)
