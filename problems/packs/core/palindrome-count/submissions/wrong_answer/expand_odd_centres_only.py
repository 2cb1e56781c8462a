# Expand around centres, but only around letters: even-length palindromes like "aa" are never counted.
import sys


def main():
    s = sys.stdin.readline().strip()
    n = len(s)
    count = 0
    for centre in range(n):
        left = right = centre
        while left >= 0 and right < n and s[left] == s[right]:
            count += 1
            left -= 1
            right += 1
    print(count)


main()
