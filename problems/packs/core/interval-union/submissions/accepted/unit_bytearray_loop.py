# Mark every covered unit in a bytearray shifted by the lowest coordinate, one unit at a time: O(sum of lengths + span).
import sys


def main():
    data = sys.stdin.buffer.read().split()
    n = int(data[0])
    coords = list(map(int, data[1:1 + 2 * n]))
    lo = min(coords)
    hi = max(coords)
    painted = bytearray(hi - lo + 1)
    for i in range(0, 2 * n, 2):
        for x in range(coords[i] - lo, coords[i + 1] - lo):
            painted[x] = 1
    print(painted.count(1))


main()
