# Per-position closed form that counts low numbers (not low + 1) in the partial cycle: misses n itself.
import sys


def digit_total(n):
    total = 0
    p = 1
    while p <= n:
        high, cur, low = n // (10 * p), (n // p) % 10, n % p
        total += high * 45 * p + cur * (cur - 1) // 2 * p + cur * low
        p *= 10
    return total


def main():
    data = sys.stdin.buffer.read().split()
    q = int(data[0])
    print("\n".join(str(digit_total(int(x))) for x in data[1:1 + q]))


main()
