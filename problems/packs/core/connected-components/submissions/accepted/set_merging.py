# Every component is a Python set; an edge between two components pours the first set into
# the second and relabels its members (no smaller-into-larger rule): O(n^2) worst case.
import sys

data = sys.stdin.read().split()
n, m = int(data[0]), int(data[1])
comp = list(range(n + 1))  # comp[v]: id of the set holding v
members = {v: {v} for v in range(1, n + 1)}
for i in range(m):
    a, b = comp[int(data[2 + 2 * i])], comp[int(data[3 + 2 * i])]
    if a == b:
        continue
    moving = members.pop(a)
    for w in moving:
        comp[w] = b
    members[b] |= moving
print(len(members))
