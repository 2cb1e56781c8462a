# Read everything, sort, count positions where the value changes: O(n log n).
import sys


def main():
    data = sys.stdin.read().split()
    n = int(data[0])
    a = [int(x) for x in data[1:n + 1]]
    a.sort()
    distinct = 1
    for i in range(1, n):
        if a[i] != a[i - 1]:
            distinct += 1
    print(distinct)


main()
