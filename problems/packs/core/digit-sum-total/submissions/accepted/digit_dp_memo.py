# Digit DP over the decimal string of n: (count, digit sum) of all numbers 0..n, memoized on position; O(q * 10 * digits).
import sys
from functools import lru_cache


def digit_total(n):
    digits = list(map(int, str(n)))
    length = len(digits)

    @lru_cache(maxsize=None)
    def free(pos):
        # every digit string for positions pos..end: (how many, sum of their digits)
        if pos == length:
            return 1, 0
        count, total = free(pos + 1)
        return 10 * count, 10 * total + 45 * count

    def tight(pos):
        # strings for positions pos..end that keep the prefix equal to n's so far
        if pos == length:
            return 1, 0
        count = total = 0
        for d in range(digits[pos]):
            c, t = free(pos + 1)
            count += c
            total += t + d * c
        c, t = tight(pos + 1)
        count += c
        total += t + digits[pos] * c
        return count, total

    return tight(0)[1]


def main():
    q = int(sys.stdin.readline())
    for _ in range(q):
        print(digit_total(int(sys.stdin.readline())))


main()
