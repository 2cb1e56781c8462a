# Union-find that lowers the component count for every edge, even one inside a component.
import sys

data = sys.stdin.buffer.read().split()
n, m = int(data[0]), int(data[1])
parent = list(range(n + 1))


def find(x):
    while parent[x] != x:
        parent[x] = parent[parent[x]]
        x = parent[x]
    return x


components = n
for i in range(m):
    u, v = find(int(data[2 + 2 * i])), find(int(data[3 + 2 * i]))
    parent[u] = v
    components -= 1
print(components)
