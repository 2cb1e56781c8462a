# Walk i = 1..n per query, updating the digit sum: going to i + 1 adds 1 and loses 9 per trailing 9; O(q * n).
import sys


def digit_total(n):
    total = 0
    current = 0  # digit sum of i - 1
    for i in range(1, n + 1):
        prev = i - 1
        while prev % 10 == 9:
            current -= 9
            prev //= 10
        current += 1
        total += current
    return total


def main():
    data = sys.stdin.read().split()
    q = int(data[0])
    for x in data[1:1 + q]:
        print(digit_total(int(x)))


main()
