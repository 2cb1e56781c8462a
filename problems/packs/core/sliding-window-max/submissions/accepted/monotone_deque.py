# Monotone deque of indices (values decreasing front to back), one joined output line: O(n).
import sys
from collections import deque


def main():
    data = sys.stdin.buffer.read().split()
    n, w = int(data[0]), int(data[1])
    a = list(map(int, data[2:2 + n]))
    dq = deque()
    out = []
    for i, x in enumerate(a):
        while dq and a[dq[-1]] <= x:
            dq.pop()
        dq.append(i)
        if dq[0] <= i - w:
            dq.popleft()
        if i >= w - 1:
            out.append(a[dq[0]])
    sys.stdout.write(" ".join(map(str, out)) + "\n")


main()
