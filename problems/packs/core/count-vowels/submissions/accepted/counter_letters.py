# Counts every letter with collections.Counter, then adds up the five vowels.
from collections import Counter

counts = Counter(input())
print(counts["a"] + counts["e"] + counts["i"] + counts["o"] + counts["u"])
