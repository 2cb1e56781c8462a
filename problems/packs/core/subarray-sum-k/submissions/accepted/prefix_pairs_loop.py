# Prefix sums, then test every pair of prefixes P[j] - P[i] == k with plain loops; O(n^2).
import sys


def main():
    data = sys.stdin.read().split()
    n, k = int(data[0]), int(data[1])
    prefix = [0] * (n + 1)
    for i in range(n):
        prefix[i + 1] = prefix[i] + int(data[2 + i])
    count = 0
    for j in range(1, n + 1):
        need = prefix[j] - k
        for i in range(j):
            if prefix[i] == need:
                count += 1
    print(count)


main()
