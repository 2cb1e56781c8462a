import sys

t, p = sys.stdin.read().split()
sw = t.startswith
print(sum(1 for i in range(len(t) - len(p) + 1) if sw(p, i)))
