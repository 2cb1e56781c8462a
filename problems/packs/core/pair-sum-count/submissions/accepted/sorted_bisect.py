import sys
from bisect import bisect_left, bisect_right


def main():
    data = sys.stdin.read().split()
    n, t = int(data[0]), int(data[1])
    a = sorted(map(int, data[2:2 + n]))
    count = 0
    for i, x in enumerate(a):
        w = t - x
        if w < x:
            break  # partners must come later in sorted order, so w >= x
        count += bisect_right(a, w, i + 1) - bisect_left(a, w, i + 1)
    print(count)


main()
