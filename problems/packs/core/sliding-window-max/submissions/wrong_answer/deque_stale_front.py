# Monotone deque that expires its front one step too late (< instead of <=).
import sys
from collections import deque

data = sys.stdin.buffer.read().split()
n, w = int(data[0]), int(data[1])
a = list(map(int, data[2:2 + n]))
dq = deque()
out = []
for i in range(n):
    while dq and a[dq[-1]] <= a[i]:
        dq.pop()
    dq.append(i)
    if dq[0] < i - w:
        dq.popleft()
    if i >= w - 1:
        out.append(a[dq[0]])
print(" ".join(map(str, out)))
