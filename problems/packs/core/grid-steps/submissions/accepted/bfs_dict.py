from collections import deque

R, C = map(int, input().split())
grid = [input().strip() for _ in range(R)]
dist = {(0, 0): 0}
q = deque([(0, 0)])
while q:
    cell = q.popleft()
    r, c = cell
    for dr, dc in [(0, 1), (1, 0), (0, -1), (-1, 0)]:
        nxt = (r + dr, c + dc)
        if 0 <= nxt[0] < R and 0 <= nxt[1] < C and grid[nxt[0]][nxt[1]] == "." and nxt not in dist:
            dist[nxt] = dist[cell] + 1
            q.append(nxt)
print(dist.get((R - 1, C - 1), -1))
