# Paints a bytearray indexed by the raw coordinates, so stretches with negative ends are lost or misplaced.
import sys


def main():
    data = sys.stdin.buffer.read().split()
    n = int(data[0])
    painted = bytearray(5001)
    for i in range(n):
        l = int(data[1 + 2 * i])
        r = int(data[2 + 2 * i])
        if l < r:
            painted[l:r] = b"\x01" * (r - l)
    print(painted.count(1))


main()
