# Kadane's scan: the best sum ending here either extends the previous one or starts anew: O(n).
import sys


def main():
    data = sys.stdin.buffer.read().split()
    n = int(data[0])
    a = list(map(int, data[1:n + 1]))
    current = best = a[0]
    for x in a[1:]:
        current = x if current < 0 else current + x
        if current > best:
            best = current
    print(best)


main()
