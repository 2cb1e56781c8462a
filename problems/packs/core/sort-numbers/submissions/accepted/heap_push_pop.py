# Push every number onto a binary heap with heapq, then pop them all in order: O(n log n).
import heapq
import sys


def main():
    readline = sys.stdin.readline
    n = int(readline())
    heap = []
    for _ in range(n):
        heapq.heappush(heap, int(readline()))
    out = [heapq.heappop(heap) for _ in range(n)]
    print(*out)


main()
