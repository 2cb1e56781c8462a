# Sweep the grid forwards then backwards, improving each cell from its neighbours,
# until a whole round changes nothing.
R, C = map(int, input().split())
g = [input() for _ in range(R)]
INF = float("inf")
dist = [[INF] * C for _ in range(R)]
dist[0][0] = 0
changed = True
while changed:
    changed = False
    for order in (range(R * C), range(R * C - 1, -1, -1)):
        for k in order:
            r, c = divmod(k, C)
            if g[r][c] == "#":
                continue
            best = dist[r][c]
            for dr, dc in ((1, 0), (-1, 0), (0, 1), (0, -1)):
                nr, nc = r + dr, c + dc
                if 0 <= nr < R and 0 <= nc < C and dist[nr][nc] + 1 < best:
                    best = dist[nr][nc] + 1
            if best < dist[r][c]:
                dist[r][c] = best
                changed = True
d = dist[R - 1][C - 1]
print(d if d != INF else -1)
