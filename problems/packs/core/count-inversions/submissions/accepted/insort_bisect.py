import sys
from bisect import bisect_right, insort


def main():
    data = sys.stdin.read().split()
    n = int(data[0])
    a = list(map(int, data[1:1 + n]))
    seen = []  # sorted values of a[0..i-1]
    count = 0
    for i, x in enumerate(a):
        count += i - bisect_right(seen, x)  # earlier values strictly greater than x
        insort(seen, x)
    print(count)


main()
