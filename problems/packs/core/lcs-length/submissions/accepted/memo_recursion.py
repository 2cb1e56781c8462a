# Top-down recursion lcs(i, j) over suffixes with a list-of-lists memo: O(|a|*|b|) states.
import sys

sys.setrecursionlimit(20000)


def main():
    a = input().strip()
    b = input().strip()
    n, m = len(a), len(b)
    memo = [[-1] * m for _ in range(n)]

    def lcs(i, j):
        """Length of the LCS of a[i:] and b[j:]."""
        if i == n or j == m:
            return 0
        row = memo[i]
        if row[j] >= 0:
            return row[j]
        if a[i] == b[j]:
            result = 1 + lcs(i + 1, j + 1)
        else:
            left = lcs(i + 1, j)
            right = lcs(i, j + 1)
            result = left if left > right else right
        row[j] = result
        return result

    print(lcs(0, 0))


main()
