# Expand around each of the 2n-1 centres while the two ends match, O(n^2) on one-letter strings.
import sys


def main():
    s = sys.stdin.readline().strip()
    n = len(s)
    count = 0
    for centre in range(2 * n - 1):
        left = centre // 2
        right = left + centre % 2
        while left >= 0 and right < n and s[left] == s[right]:
            count += 1
            left -= 1
            right += 1
    print(count)


main()
