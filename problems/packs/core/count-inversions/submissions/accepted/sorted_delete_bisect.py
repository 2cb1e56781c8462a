import sys
from bisect import bisect_left


def main():
    data = sys.stdin.read().split()
    n = int(data[0])
    a = list(map(int, data[1:1 + n]))
    rest = sorted(a)  # sorted values of a[i..n-1]
    count = 0
    for x in a:
        pos = bisect_left(rest, x)  # later (and current) values strictly smaller than x
        count += pos
        del rest[pos]
    print(count)


main()
