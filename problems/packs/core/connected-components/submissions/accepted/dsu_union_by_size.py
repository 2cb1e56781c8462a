# Union-find with union by size but no path compression: O(log n) per find, O(m log n).
import sys

data = sys.stdin.read().split()
n, m = int(data[0]), int(data[1])
parent = list(range(n + 1))
size = [1] * (n + 1)


def find(x):
    while parent[x] != x:
        x = parent[x]
    return x


components = n
for i in range(m):
    a, b = find(int(data[2 + 2 * i])), find(int(data[3 + 2 * i]))
    if a != b:
        if size[a] < size[b]:
            a, b = b, a
        parent[b] = a
        size[a] += size[b]
        components -= 1
print(components)
