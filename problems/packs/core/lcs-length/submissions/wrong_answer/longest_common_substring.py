# Rolling-row DP that resets to 0 on a mismatch: computes the longest common SUBSTRING, O(|a|*|b|).
import sys


def main():
    a, b = sys.stdin.read().split()
    m = len(b)
    prev = [0] * (m + 1)
    best = 0
    for ch in a:
        cur = [0] * (m + 1)
        for j in range(m):
            if ch == b[j]:
                cur[j + 1] = prev[j] + 1
                if cur[j + 1] > best:
                    best = cur[j + 1]
        prev = cur
    print(best)


main()
