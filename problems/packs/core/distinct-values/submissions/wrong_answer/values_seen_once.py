# Counts the values that occur exactly once instead of the number of different values.
import sys
from collections import Counter

data = sys.stdin.buffer.read().split()
n = int(data[0])
counts = Counter(map(int, data[1:n + 1]))
print(sum(1 for c in counts.values() if c == 1))
