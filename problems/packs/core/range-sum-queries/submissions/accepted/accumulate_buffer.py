import sys
from itertools import accumulate


def main():
    data = sys.stdin.buffer.read().split()
    n = int(data[0])
    q = int(data[1])
    prefix = [0]
    prefix += accumulate(map(int, data[2 : 2 + n]))
    bounds = iter(map(int, data[2 + n : 2 + n + 2 * q]))
    sys.stdout.write("\n".join([str(prefix[r] - prefix[l - 1]) for l, r in zip(bounds, bounds)]))
    sys.stdout.write("\n")


main()
