# Reports the length of the first path depth-first search finds, which need not be shortest.
import sys

data = sys.stdin.read().split()
R, C = int(data[0]), int(data[1])
g = data[2:2 + R]
depth = [[-1] * C for _ in range(R)]
depth[0][0] = 0
stack = [(0, 0)]
while stack:
    r, c = stack.pop()
    for nr, nc in ((r - 1, c), (r, c - 1), (r + 1, c), (r, c + 1)):
        if 0 <= nr < R and 0 <= nc < C and g[nr][nc] == "." and depth[nr][nc] < 0:
            depth[nr][nc] = depth[r][c] + 1
            stack.append((nr, nc))
print(depth[R - 1][C - 1])
