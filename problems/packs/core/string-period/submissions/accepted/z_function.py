# Z-function: the first p whose match with the prefix runs to the end of the string, O(n).
import sys


def main():
    s = sys.stdin.buffer.readline().strip()
    n = len(s)
    z = [0] * n
    left = right = 0  # s[left:right] is the rightmost segment known to match a prefix
    for i in range(1, n):
        k = 0
        if i < right:
            k = min(right - i, z[i - left])
        while i + k < n and s[k] == s[i + k]:
            k += 1
        z[i] = k
        if i + k > right:
            left, right = i, i + k
        if i + k == n:
            print(i)
            return
    print(n)


main()
