import heapq
import sys


def main():
    data = sys.stdin.read().split()
    R, C = int(data[0]), int(data[1])
    g = data[2:2 + R]
    INF = 10**9
    dist = [[INF] * C for _ in range(R)]
    dist[0][0] = 0
    heap = [(0, 0, 0)]
    while heap:
        d, r, c = heapq.heappop(heap)
        if d > dist[r][c]:
            continue
        if r == R - 1 and c == C - 1:
            print(d)
            return
        for nr, nc in ((r + 1, c), (r - 1, c), (r, c + 1), (r, c - 1)):
            if 0 <= nr < R and 0 <= nc < C and g[nr][nc] == "." and d + 1 < dist[nr][nc]:
                dist[nr][nc] = d + 1
                heapq.heappush(heap, (d + 1, nr, nc))
    print(-1)


main()
