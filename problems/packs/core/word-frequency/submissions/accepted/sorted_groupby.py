# sorted() on byte tokens, itertools.groupby to measure runs, keep the first longest: O(m log m).
import sys
from itertools import groupby


def main():
    data = sys.stdin.buffer.read().split()
    m = int(data[0])
    best_word, best_count = b"", 0
    for word, run in groupby(sorted(data[1:m + 1])):
        c = sum(1 for _ in run)
        if c > best_count:
            best_word, best_count = word, c
    print(best_word.decode(), best_count)


main()
