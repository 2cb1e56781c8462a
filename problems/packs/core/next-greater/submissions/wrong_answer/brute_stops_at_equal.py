# Brute force that scans the suffix but stops at the first value that is not smaller (>= instead of >), O(n^2).
import sys


def main():
    data = sys.stdin.read().split()
    n = int(data[0])
    a = list(map(int, data[1:1 + n]))
    res = []
    for i in range(n):
        ans = -1
        for j in range(i + 1, n):
            if a[j] >= a[i]:  # bug: an equal value is not strictly greater
                if a[j] > a[i]:
                    ans = a[j]
                break
        res.append(ans)
    print(" ".join(map(str, res)))


main()
