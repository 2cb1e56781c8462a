# sys.stdin.readline, collections.defaultdict(int), min() with a (-count, word) key: O(total length).
import sys
from collections import defaultdict


def main():
    readline = sys.stdin.readline
    m = int(readline())
    counts = defaultdict(int)
    read = 0
    while read < m:
        words = readline().split()
        read += len(words)
        for word in words:
            counts[word] += 1
    word, count = min(counts.items(), key=lambda kv: (-kv[1], kv[0]))
    print(word, count)


main()
