# Union-find over the nodes that appear in some edge: isolated nodes are never counted.
import sys

data = sys.stdin.buffer.read().split()
n, m = int(data[0]), int(data[1])
parent = {}


def find(x):
    root = x
    while parent[root] != root:
        root = parent[root]
    while parent[x] != root:
        parent[x], x = root, parent[x]
    return root


for i in range(m):
    u, v = int(data[2 + 2 * i]), int(data[3 + 2 * i])
    parent.setdefault(u, u)
    parent.setdefault(v, v)
    ru, rv = find(u), find(v)
    if ru != rv:
        parent[ru] = rv
print(sum(1 for v in parent if find(v) == v))
