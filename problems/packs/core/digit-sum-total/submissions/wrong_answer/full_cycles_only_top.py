# Leading-digit recursion that forgets the leading digit's own block (m * (rest + 1)).
import sys


def digit_total(n):
    if n < 10:
        return n * (n + 1) // 2
    d = len(str(n)) - 1
    power = 10**d
    m, rest = divmod(n, power)
    return m * 45 * d * 10 ** (d - 1) + power * m * (m - 1) // 2 + digit_total(rest)


def main():
    data = sys.stdin.read().split()
    q = int(data[0])
    print("\n".join(str(digit_total(int(x))) for x in data[1:1 + q]))


main()
