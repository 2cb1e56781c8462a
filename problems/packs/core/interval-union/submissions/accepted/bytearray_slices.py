# Paint each stretch with one slice assignment into a bytearray (a memset), then count: O(sum of lengths / fast + span).
import sys


def main():
    data = sys.stdin.buffer.read().split()
    n = int(data[0])
    offset = 5000
    painted = bytearray(2 * offset + 1)
    for i in range(n):
        l = int(data[1 + 2 * i]) + offset
        r = int(data[2 + 2 * i]) + offset
        painted[l:r] = b"\x01" * (r - l)
    print(painted.count(1))


main()
