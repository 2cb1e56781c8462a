# DP table: s[i..j] is a palindrome when s[i] == s[j] and s[i+1..j-1] is one, O(n^2) time and memory.
import sys


def main():
    s = sys.stdin.readline().strip()
    n = len(s)
    pal = [[False] * n for _ in range(n)]
    count = 0
    for i in range(n - 1, -1, -1):
        row = pal[i]
        inner = pal[i + 1] if i + 1 < n else None
        c = s[i]
        for j in range(i, n):
            if c == s[j] and (j - i < 2 or inner[j - 1]):
                row[j] = True
                count += 1
    print(count)


main()
