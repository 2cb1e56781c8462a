# Sieve: every d adds one to each of its multiples up to the largest query, then prefix sums: O(N log N).
import sys


def main():
    data = sys.stdin.read().split()
    q = int(data[0])
    queries = [int(x) for x in data[1:1 + q]]
    top = max(queries)
    divisors = [0] * (top + 1)
    for d in range(1, top + 1):
        for m in range(d, top + 1, d):
            divisors[m] += 1
    prefix = [0] * (top + 1)
    total = 0
    for i in range(1, top + 1):
        total += divisors[i]
        prefix[i] = total
    for n in queries:
        print(prefix[n])


main()
