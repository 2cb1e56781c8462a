import sys
from heapq import heappop, heappush, heappushpop


def main():
    data = sys.stdin.buffer.read().split()
    n = int(data[0])
    low = []   # max-heap (negated): the smaller half, holds the lower median on top
    high = []  # min-heap: the larger half
    out = []
    for x in map(int, data[1:1 + n]):
        if len(low) == len(high):
            # the new lower median is the largest of low + {x} after moving high's minimum down
            heappush(low, -heappushpop(high, x))
        else:
            heappush(high, -heappushpop(low, -x))
        out.append(-low[0])
    sys.stdout.write(" ".join(map(str, out)) + "\n")


main()
