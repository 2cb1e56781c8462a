# Brute force: for every query, peel digits of each i = 1..n with % 10 and // 10; O(q * n * digits).
import sys


def digit_total(n):
    total = 0
    for i in range(1, n + 1):
        while i:
            total += i % 10
            i //= 10
    return total


def main():
    data = sys.stdin.read().split()
    q = int(data[0])
    print("\n".join(str(digit_total(int(x))) for x in data[1:1 + q]))


main()
