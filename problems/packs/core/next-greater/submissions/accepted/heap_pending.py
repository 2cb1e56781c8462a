# Sweep left to right keeping unanswered positions in a min-heap by value, O(n log n).
import heapq
import sys


def main():
    data = sys.stdin.buffer.read().split()
    n = int(data[0])
    a = list(map(int, data[1:1 + n]))
    res = [-1] * n
    pending = []  # (value, index) of positions still waiting for a greater value
    for j, x in enumerate(a):
        while pending and pending[0][0] < x:
            _, i = heapq.heappop(pending)
            res[i] = x
        heapq.heappush(pending, (x, j))
    print(" ".join(map(str, res)))


main()
