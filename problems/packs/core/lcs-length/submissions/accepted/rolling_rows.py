# DP keeping only the previous and the current row: O(|a|*|b|) time, O(|b|) memory.
import sys


def main():
    a, b = sys.stdin.read().split()
    m = len(b)
    prev = [0] * (m + 1)
    for ch in a:
        cur = [0] * (m + 1)
        for j in range(m):
            if ch == b[j]:
                cur[j + 1] = prev[j] + 1
            elif prev[j + 1] > cur[j]:
                cur[j + 1] = prev[j + 1]
            else:
                cur[j + 1] = cur[j]
        prev = cur
    print(prev[m])


main()
