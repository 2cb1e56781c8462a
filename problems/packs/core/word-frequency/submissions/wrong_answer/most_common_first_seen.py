# Counter.most_common(1): among tied words it returns the one seen first, not the smallest.
import sys
from collections import Counter

data = sys.stdin.buffer.read().split()
m = int(data[0])
word, count = Counter(data[1:m + 1]).most_common(1)[0]
print(word.decode(), count)
