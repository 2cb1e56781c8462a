# Monotone deque of indices whose values decrease from front to back, printing every maximum
# with its own print() call: O(n) work, but n separate writes.
from collections import deque

n, w = map(int, input().split())
a = list(map(int, input().split()))
dq = deque()
for i in range(n):
    while dq and a[dq[-1]] <= a[i]:
        dq.pop()
    dq.append(i)
    if dq[0] <= i - w:
        dq.popleft()
    if i >= w - 1:
        print(a[dq[0]])
