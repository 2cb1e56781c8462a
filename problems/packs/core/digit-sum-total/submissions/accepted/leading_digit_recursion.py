# Recursion on the leading digit: numbers below m * 10^d, then the block starting at m * 10^d; O(q * digits^2).
import sys


def below_power(d):
    # digit sum of all numbers 0 .. 10^d - 1
    return 45 * d * 10 ** (d - 1) if d > 0 else 0


def digit_total(n):
    if n < 10:
        return n * (n + 1) // 2
    d = len(str(n)) - 1
    power = 10**d
    m, rest = divmod(n, power)
    # blocks 0.., 1.., ..., (m-1).. each of size 10^d, then m followed by 0..rest
    return (
        m * below_power(d)
        + power * m * (m - 1) // 2
        + m * (rest + 1)
        + digit_total(rest)
    )


def main():
    data = sys.stdin.read().split()
    q = int(data[0])
    print("\n".join(str(digit_total(int(x))) for x in data[1:1 + q]))


main()
