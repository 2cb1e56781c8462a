# Sort (prefix, index) pairs for starts and ends, count earlier equal prefixes with two pointers; O(n log n).
import sys


def main():
    data = sys.stdin.read().split()
    n, k = int(data[0]), int(data[1])
    prefix = [0] * (n + 1)
    for i in range(n):
        prefix[i + 1] = prefix[i] + int(data[2 + i])
    # a subarray is a start (P[i], i) and an end (P[j] - k, j) with equal value and i < j
    starts = sorted((prefix[i], i) for i in range(n + 1))
    ends = sorted((prefix[j] - k, j) for j in range(n + 1))
    m = n + 1
    count = 0
    s = 0  # first start whose value is >= the current end's value
    t = 0  # first start that is not (same value and earlier index)
    for end in ends:
        value = end[0]
        while s < m and starts[s][0] < value:
            s += 1
        if t < s:
            t = s
        while t < m and starts[t] < end:
            t += 1
        count += t - s
    print(count)


main()
