# max() over (count, word) pairs: right count, but a tie goes to the lexicographically largest word.
import sys

data = sys.stdin.read().split()
m = int(data[0])
counts = {}
for word in data[1:m + 1]:
    counts[word] = counts.get(word, 0) + 1
count, word = max((c, w) for w, c in counts.items())
print(word, count)
