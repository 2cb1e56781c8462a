import sys
from collections import Counter


def main():
    data = sys.stdin.read().split()
    n, t = int(data[0]), int(data[1])
    c = Counter(map(int, data[2:2 + n]))
    count = 0
    for v, k in c.items():
        w = t - v
        if v == w:
            count += k * (k - 1) // 2
        elif v < w and w in c:
            count += k * c[w]
    print(count)


main()
