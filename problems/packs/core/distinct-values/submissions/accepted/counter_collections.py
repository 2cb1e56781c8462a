# collections.Counter over all values read at once, answer = len(counter): O(n) expected.
import sys
from collections import Counter


def main():
    data = sys.stdin.read().split()
    n = int(data[0])
    print(len(Counter(map(int, data[1:n + 1]))))


main()
