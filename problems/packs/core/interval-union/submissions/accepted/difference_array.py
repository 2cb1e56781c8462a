# Difference array over the coordinate range: +1 at l, -1 at r, prefix sums count covered units: O(n + span).
import sys
from itertools import accumulate


def main():
    data = sys.stdin.buffer.read().split()
    n = int(data[0])
    offset = 5000
    diff = [0] * (2 * offset + 2)
    for i in range(n):
        diff[int(data[1 + 2 * i]) + offset] += 1
        diff[int(data[2 + 2 * i]) + offset] -= 1
    print(sum(1 for depth in accumulate(diff) if depth > 0))


main()
