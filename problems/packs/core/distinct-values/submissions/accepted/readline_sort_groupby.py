# sys.stdin.readline per value, then sorted() and itertools.groupby over equal runs: O(n log n).
import sys
from itertools import groupby


def main():
    readline = sys.stdin.readline
    n = int(readline())
    values = [int(readline()) for _ in range(n)]
    print(sum(1 for _ in groupby(sorted(values))))


main()
