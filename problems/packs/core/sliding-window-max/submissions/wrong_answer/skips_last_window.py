# Block prefix/suffix maxima, but the loop over windows stops one window early.
import sys

data = sys.stdin.buffer.read().split()
n, w = int(data[0]), int(data[1])
a = list(map(int, data[2:2 + n]))
prefix = a[:]
suffix = a[:]
for i in range(1, n):
    if i % w:
        prefix[i] = max(prefix[i - 1], a[i])
for i in range(n - 2, -1, -1):
    if (i + 1) % w:
        suffix[i] = max(suffix[i + 1], a[i])
print(" ".join(str(max(suffix[i], prefix[i + w - 1])) for i in range(n - w)))
