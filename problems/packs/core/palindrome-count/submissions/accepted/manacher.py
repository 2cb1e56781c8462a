# Manacher's algorithm on the string with separators: sum of palindrome radii, O(n).
import sys


def main():
    s = sys.stdin.buffer.readline().strip()
    t = b"^#" + b"#".join(s[i:i + 1] for i in range(len(s))) + b"#$"
    m = len(t)
    rad = [0] * m
    centre = right = 0
    for i in range(1, m - 1):
        k = 0
        if i < right:
            k = min(right - i, rad[2 * centre - i])
        while t[i + k + 1] == t[i - k - 1]:
            k += 1
        rad[i] = k
        if i + k > right:
            centre, right = i, i + k
    # a radius k in t is a palindrome of length k in s, giving (k + 1) // 2 of them at that centre
    print(sum((k + 1) // 2 for k in rad))


main()
