# Trial division that pairs every divisor d <= sqrt(i) with i // d, even when they are the same number.
import sys
from math import isqrt


def main():
    data = sys.stdin.read().split()
    q = int(data[0])
    queries = [int(x) for x in data[1:1 + q]]
    top = max(queries)
    prefix = [0] * (top + 1)
    total = 0
    for i in range(1, top + 1):
        count = 0
        for d in range(1, isqrt(i) + 1):
            if i % d == 0:
                count += 2  # bug: for a perfect square, sqrt(i) is counted twice
        total += count
        prefix[i] = total
    print("\n".join(str(prefix[n]) for n in queries))


main()
