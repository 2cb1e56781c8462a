# Counts changes between neighbouring lines without sorting first (right only for sorted input).
import sys

data = sys.stdin.buffer.read().split()
n = int(data[0])
a = list(map(int, data[1:n + 1]))
distinct = 1
for i in range(1, n):
    if a[i] != a[i - 1]:
        distinct += 1
print(distinct)
