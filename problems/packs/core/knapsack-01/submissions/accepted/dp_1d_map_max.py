# Per item, best[w:] = map(max, best[w:], best + v) built from slices, so the loop runs in C: O(n*W).
import sys
from itertools import repeat
from operator import add


def main():
    data = sys.stdin.buffer.read().split()
    n, capacity = int(data[0]), int(data[1])
    best = [0] * (capacity + 1)
    for i in range(n):
        w, v = int(data[2 + 2 * i]), int(data[3 + 2 * i])
        if w > capacity:
            continue
        # the right side is evaluated from the old list before the slice is replaced
        best[w:] = map(max, best[w:], map(add, best, repeat(v, capacity + 1 - w)))
    print(best[capacity])


main()
