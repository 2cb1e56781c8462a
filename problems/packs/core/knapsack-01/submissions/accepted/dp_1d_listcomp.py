# Per item, the next row is built with a list comprehension over zip(old, shifted old): O(n*W).
import sys


def main():
    data = sys.stdin.buffer.read().split()
    n, capacity = int(data[0]), int(data[1])
    best = [0] * (capacity + 1)
    for i in range(n):
        w, v = int(data[2 + 2 * i]), int(data[3 + 2 * i])
        if w > capacity:
            continue
        best[w:] = [a if a > b + v else b + v for a, b in zip(best[w:], best)]
    print(best[capacity])


main()
