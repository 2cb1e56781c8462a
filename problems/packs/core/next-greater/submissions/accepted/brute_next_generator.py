# Brute force with next() over a generator on the suffix slice, O(n^2) with a smaller constant.
import sys


def main():
    data = sys.stdin.read().split()
    n = int(data[0])
    a = list(map(int, data[1:1 + n]))
    res = []
    for i in range(n):
        v = a[i]
        res.append(next((x for x in a[i + 1:] if x > v), -1))
    print(" ".join(map(str, res)))


main()
