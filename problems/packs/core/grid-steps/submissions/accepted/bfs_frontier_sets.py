import sys

data = sys.stdin.read().split()
R, C = int(data[0]), int(data[1])
g = data[2:2 + R]
seen = {(0, 0)}
frontier = [(0, 0)]
steps = 0
answer = -1
while frontier:
    if (R - 1, C - 1) in seen:
        answer = steps
        break
    nxt = set()
    for r, c in frontier:
        for nr, nc in ((r + 1, c), (r - 1, c), (r, c + 1), (r, c - 1)):
            if 0 <= nr < R and 0 <= nc < C and g[nr][nc] == "." and (nr, nc) not in seen:
                nxt.add((nr, nc))
    seen |= nxt
    frontier = nxt
    steps += 1
print(answer)
