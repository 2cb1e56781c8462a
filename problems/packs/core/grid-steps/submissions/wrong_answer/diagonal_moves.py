import sys
from collections import deque

data = sys.stdin.read().split()
R, C = int(data[0]), int(data[1])
g = data[2:2 + R]
dist = [[-1] * C for _ in range(R)]
dist[0][0] = 0
q = deque([(0, 0)])
while q:
    r, c = q.popleft()
    for dr in (-1, 0, 1):
        for dc in (-1, 0, 1):
            nr, nc = r + dr, c + dc
            if 0 <= nr < R and 0 <= nc < C and g[nr][nc] == "." and dist[nr][nc] < 0:
                dist[nr][nc] = dist[r][c] + 1
                q.append((nr, nc))
print(dist[R - 1][C - 1])
