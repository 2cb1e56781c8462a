# input() line by line, counts in a dict with if/else, then one pass for the best word: O(total length).
def main():
    m = int(input())
    counts = {}
    read = 0
    while read < m:
        for word in input().split():
            if word in counts:
                counts[word] += 1
            else:
                counts[word] = 1
            read += 1
    best_word = None
    best_count = 0
    for word in counts:
        c = counts[word]
        if c > best_count or (c == best_count and word < best_word):
            best_word = word
            best_count = c
    print(best_word, best_count)


main()
