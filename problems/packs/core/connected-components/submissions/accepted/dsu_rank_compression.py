# Union-find with union by rank and path halving, reading everything at once: O((n + m) alpha(n)).
import sys


def main():
    data = sys.stdin.buffer.read().split()
    n, m = int(data[0]), int(data[1])
    parent = list(range(n + 1))
    rank = [0] * (n + 1)
    components = n
    it = iter(map(int, data[2:2 + 2 * m]))
    for u in it:
        v = next(it)
        while parent[u] != u:
            parent[u] = parent[parent[u]]
            u = parent[u]
        while parent[v] != v:
            parent[v] = parent[parent[v]]
            v = parent[v]
        if u == v:
            continue
        if rank[u] < rank[v]:
            u, v = v, u
        parent[v] = u
        if rank[u] == rank[v]:
            rank[u] += 1
        components -= 1
    print(components)


main()
