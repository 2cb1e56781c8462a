import sys
from bisect import insort


def main():
    data = sys.stdin.read().split()
    n = int(data[0])
    s = []
    out = []
    for x in map(int, data[1:1 + n]):
        insort(s, x)
        out.append(s[(len(s) - 1) >> 1])
    print(*out)


main()
