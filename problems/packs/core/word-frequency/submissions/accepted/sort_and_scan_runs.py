# Sort all words, scan runs of equal words; the first run with the largest length wins: O(m log m).
import sys


def main():
    data = sys.stdin.read().split()
    m = int(data[0])
    words = sorted(data[1:m + 1])
    best_word, best_count = "", 0
    i = 0
    while i < m:
        j = i
        while j < m and words[j] == words[i]:
            j += 1
        if j - i > best_count:
            best_word, best_count = words[i], j - i
        i = j
    print(best_word, best_count)


main()
