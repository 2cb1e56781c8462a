# Prefix sums; the best sum ending at j is prefix[j] minus the smallest earlier prefix: O(n).
import sys


def main():
    data = sys.stdin.read().split()
    n = int(data[0])
    prefix = 0
    smallest = 0  # smallest prefix sum seen so far (the empty prefix counts)
    best = None
    for token in data[1:n + 1]:
        prefix += int(token)
        if best is None or prefix - smallest > best:
            best = prefix - smallest
        if prefix < smallest:
            smallest = prefix
    print(best)


main()
