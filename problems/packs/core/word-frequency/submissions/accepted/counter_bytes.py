# sys.stdin.buffer + collections.Counter on raw byte tokens (counting loop in C): O(total length).
import sys
from collections import Counter


def main():
    data = sys.stdin.buffer.read().split()
    m = int(data[0])
    counts = Counter(data[1:m + 1])
    best = max(counts.values())
    word = min(w for w, c in counts.items() if c == best)
    sys.stdout.write(f"{word.decode()} {best}\n")


main()
