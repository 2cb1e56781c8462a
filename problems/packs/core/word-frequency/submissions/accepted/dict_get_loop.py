# Whole input at once, dict.get counting loop, then max count and min word among the tied: O(total length).
import sys


def main():
    data = sys.stdin.read().split()
    m = int(data[0])
    counts = {}
    get = counts.get
    for word in data[1:m + 1]:
        counts[word] = get(word, 0) + 1
    best = max(counts.values())
    print(min(w for w, c in counts.items() if c == best), best)


main()
