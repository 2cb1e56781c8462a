# Try every shift p, comparing s with s[p:] through map(operator.eq), O(n^2) at C speed per shift.
import sys
from operator import eq


def main():
    s = sys.stdin.readline().strip()
    n = len(s)
    for p in range(1, n + 1):
        if all(map(eq, s, s[p:])):
            print(p)
            return


main()
