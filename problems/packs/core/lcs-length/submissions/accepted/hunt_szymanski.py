# Hunt-Szymanski: for every match (i, j), bisect into the smallest-tail array: O((r + |a|) log |b|), r = number of matching pairs.
import sys
from bisect import bisect_left


def main():
    a, b = sys.stdin.read().split()
    where = {}
    for j, ch in enumerate(b):
        where.setdefault(ch, []).append(j)
    for positions in where.values():
        positions.reverse()  # decreasing j, so one character of a extends a chain at most once
    tails = []  # tails[k] = smallest end position in b of a common subsequence of length k+1
    for ch in a:
        for j in where.get(ch, ()):
            k = bisect_left(tails, j)
            if k == len(tails):
                tails.append(j)
            else:
                tails[k] = j
    print(len(tails))


main()
