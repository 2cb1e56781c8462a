# Max-heap (heapq with negated values) holding (value, index); entries that fell out of the
# window are discarded only when they reach the top: O(n log n).
import heapq
import sys


def main():
    data = sys.stdin.buffer.read().split()
    n, w = int(data[0]), int(data[1])
    a = list(map(int, data[2:2 + n]))
    heap = [(-a[j], j) for j in range(w - 1)]
    heapq.heapify(heap)
    out = []
    for i in range(w - 1, n):
        heapq.heappush(heap, (-a[i], i))
        while heap[0][1] <= i - w:
            heapq.heappop(heap)
        out.append(-heap[0][0])
    print(" ".join(map(str, out)))


main()
