# Add each stretch's unit segments to a set in one set.update(range(l, r)) call: O(sum of lengths) at C speed.
import sys


def main():
    data = sys.stdin.read().split()
    n = int(data[0])
    covered = set()
    for i in range(n):
        covered.update(range(int(data[1 + 2 * i]), int(data[2 + 2 * i])))
    print(len(covered))


main()
