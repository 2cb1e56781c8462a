# Greedy two-pointer: match each letter of a with its earliest unused occurrence in b, O(|a| + |b|*26).
import sys


def main():
    a, b = sys.stdin.read().split()
    m = len(b)
    # nxt[j][c] = first position >= j holding letter c (m if none)
    nxt = [None] * (m + 1)
    nxt[m] = [m] * 26
    for j in range(m - 1, -1, -1):
        row = nxt[j + 1][:]
        row[ord(b[j]) - 97] = j
        nxt[j] = row
    pos = 0
    count = 0
    for ch in a:
        if pos > m - 1:
            break
        k = nxt[pos][ord(ch) - 97]
        if k < m:
            count += 1
            pos = k + 1
    print(count)


main()
