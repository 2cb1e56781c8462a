# Each query separately: D(n) = sum of n // k for k = 1..n (k divides n // k numbers up to n): O(q * N).
import sys


def main():
    data = sys.stdin.read().split()
    q = int(data[0])
    out = []
    for token in data[1:1 + q]:
        n = int(token)
        out.append(sum(map(n.__floordiv__, range(1, n + 1))))
    print("\n".join(map(str, out)))


main()
