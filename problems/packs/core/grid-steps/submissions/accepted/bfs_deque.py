import sys
from collections import deque


def main():
    data = sys.stdin.read().split()
    R, C = int(data[0]), int(data[1])
    g = data[2:2 + R]
    dist = [[-1] * C for _ in range(R)]
    dist[0][0] = 0
    q = deque([(0, 0)])
    while q:
        r, c = q.popleft()
        d = dist[r][c] + 1
        if r > 0 and g[r - 1][c] == "." and dist[r - 1][c] < 0:
            dist[r - 1][c] = d
            q.append((r - 1, c))
        if r + 1 < R and g[r + 1][c] == "." and dist[r + 1][c] < 0:
            dist[r + 1][c] = d
            q.append((r + 1, c))
        if c > 0 and g[r][c - 1] == "." and dist[r][c - 1] < 0:
            dist[r][c - 1] = d
            q.append((r, c - 1))
        if c + 1 < C and g[r][c + 1] == "." and dist[r][c + 1] < 0:
            dist[r][c + 1] = d
            q.append((r, c + 1))
    print(dist[R - 1][C - 1])


main()
