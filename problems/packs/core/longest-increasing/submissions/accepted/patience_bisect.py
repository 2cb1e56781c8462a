import sys
from bisect import bisect_left


def main():
    data = sys.stdin.buffer.read().split()
    n = int(data[0])
    tails = []
    append = tails.append
    for x in map(int, data[1:n + 1]):
        if not tails or tails[-1] < x:
            append(x)
        else:
            tails[bisect_left(tails, x)] = x
    sys.stdout.write(f"{len(tails)}\n")


main()
