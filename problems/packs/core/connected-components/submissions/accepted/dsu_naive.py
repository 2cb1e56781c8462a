# Union-find with neither path compression nor union by rank, one input() per edge:
# O(n) per find, O(n * m) in total.
n, m = map(int, input().split())
parent = list(range(n + 1))


def find(x):
    while parent[x] != x:
        x = parent[x]
    return x


components = n
for _ in range(m):
    u, v = map(int, input().split())
    ru, rv = find(u), find(v)
    if ru != rv:
        parent[ru] = rv
        components -= 1
print(components)
