# Every node starts with its own label; sweep the edge list forwards and backwards giving both
# ends the smaller label until nothing changes: O(m * rounds), rounds up to the diameter.
import sys

data = sys.stdin.read().split()
n, m = int(data[0]), int(data[1])
edges = [(int(data[2 + 2 * i]), int(data[3 + 2 * i])) for i in range(m)]
label = list(range(n + 1))
changed = True
while changed:
    changed = False
    for order in (edges, edges[::-1]):
        for u, v in order:
            lu, lv = label[u], label[v]
            if lu < lv:
                label[v] = lu
                changed = True
            elif lv < lu:
                label[u] = lv
                changed = True
print(len(set(label[1:])))
