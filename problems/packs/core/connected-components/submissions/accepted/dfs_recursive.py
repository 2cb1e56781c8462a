# Recursive DFS over a dict of neighbour sets, one readline() per edge: O(n + m).
import sys

sys.setrecursionlimit(50000)
readline = sys.stdin.readline
n, m = map(int, readline().split())
neighbours = {v: set() for v in range(1, n + 1)}
for _ in range(m):
    u, v = map(int, readline().split())
    neighbours[u].add(v)
    neighbours[v].add(u)
visited = set()


def explore(v):
    visited.add(v)
    for w in neighbours[v]:
        if w not in visited:
            explore(w)


components = 0
for v in range(1, n + 1):
    if v not in visited:
        components += 1
        explore(v)
print(components)
