# Prefix function, but it assumes a period must divide n (confusing it with the shortest repeating block).
import sys


def main():
    s = sys.stdin.readline().strip()
    n = len(s)
    pi = [0] * n
    for i in range(1, n):
        k = pi[i - 1]
        while k and s[i] != s[k]:
            k = pi[k - 1]
        if s[i] == s[k]:
            k += 1
        pi[i] = k
    p = n - pi[-1]
    print(p if n % p == 0 else n)  # bug: abcab has period 3 although 3 does not divide 5


main()
