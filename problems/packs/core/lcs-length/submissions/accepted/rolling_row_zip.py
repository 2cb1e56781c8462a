# One rolling row walked with zip and local variables (diagonal/left kept in locals): O(|a|*|b|).
import sys


def main():
    a, b = sys.stdin.read().split()
    if len(a) < len(b):
        a, b = b, a  # the row follows the shorter string
    row = [0] * len(b)
    for ch in a:
        diag = left = 0  # dp[i-1][j-1] and dp[i][j-1]
        new = []
        append = new.append
        for up, bc in zip(row, b):
            if ch == bc:
                left = diag + 1
            elif up > left:
                left = up
            diag = up
            append(left)
        row = new
    print(row[-1] if row else 0)


main()
