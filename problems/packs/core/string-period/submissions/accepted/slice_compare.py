# Try every shift p with one bytes comparison s[p:] == s[:n-p], O(n^2) memcmp.
import sys


def main():
    s = sys.stdin.buffer.readline().strip()
    n = len(s)
    p = 1
    while p < n and s[p:] != s[: n - p]:
        p += 1
    print(p)


main()
