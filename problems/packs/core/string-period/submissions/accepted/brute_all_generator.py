# Try every shift p with all() over a generator of letter comparisons, O(n^2).
import sys


def main():
    s = sys.stdin.readline().strip()
    n = len(s)
    for p in range(1, n + 1):
        if all(s[i] == s[i + p] for i in range(n - p)):
            print(p)
            return


main()
