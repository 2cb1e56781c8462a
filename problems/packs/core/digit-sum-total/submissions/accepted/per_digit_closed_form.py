# Closed form per decimal position: full cycles give 45 * p each, plus the partial cycle; O(q * log n).
import sys


def digit_total(n):
    total = 0
    p = 1
    while p <= n:
        high, cur, low = n // (10 * p), (n // p) % 10, n % p
        # in 0..n this position runs through 0..9 `high` full times (each value p times),
        # then through 0..cur-1 (p times each) and finally shows cur for low + 1 numbers
        total += high * 45 * p + cur * (cur - 1) // 2 * p + cur * (low + 1)
        p *= 10
    return total


def main():
    data = sys.stdin.buffer.read().split()
    q = int(data[0])
    sys.stdout.write("".join(f"{digit_total(int(x))}\n" for x in data[1:1 + q]))


main()
