# Kadane that starts from 0 and resets to 0: answers 0 when every value is negative (empty subarray).
import sys

data = sys.stdin.buffer.read().split()
n = int(data[0])
best = current = 0
for x in map(int, data[1:n + 1]):
    current = max(0, current + x)
    best = max(best, current)
print(best)
