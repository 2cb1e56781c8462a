# Keep the start positions of all palindromes of one length in a set and widen them by one letter per side, O(n + answer).
import sys


def main():
    s = sys.stdin.readline().strip()
    n = len(s)

    def count_from(starts, length):
        total = 0
        while starts:
            total += len(starts)
            # s[i : i+length] is a palindrome, so s[i-1 : i+length+1] is one if its two ends match
            starts = {i - 1 for i in starts if i >= 1 and i + length < n and s[i - 1] == s[i + length]}
            length += 2
        return total

    odd = set(range(n))
    even = {i for i in range(n - 1) if s[i] == s[i + 1]}
    print(count_from(odd, 1) + count_from(even, 2))


main()
