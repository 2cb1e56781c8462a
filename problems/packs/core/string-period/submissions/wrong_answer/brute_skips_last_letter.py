# Try every shift p, but the comparison loop stops one letter early (off by one), O(n^2).
import sys


def main():
    s = sys.stdin.readline().strip()
    n = len(s)
    for p in range(1, n + 1):
        ok = True
        for i in range(n - p - 1):  # bug: should be range(n - p)
            if s[i] != s[i + p]:
                ok = False
                break
        if ok:
            print(p)
            return


main()
