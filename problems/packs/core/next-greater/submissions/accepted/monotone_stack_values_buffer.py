# Monotone stack of candidate values from the right, buffered I/O, O(n).
import sys


def main():
    data = sys.stdin.buffer.read().split()
    n = int(data[0])
    a = list(map(int, data[1:1 + n]))
    res = [-1] * n
    stack = []  # strictly decreasing from bottom to top: candidates for the next greater
    pop = stack.pop
    push = stack.append
    for i in range(n - 1, -1, -1):
        v = a[i]
        while stack and stack[-1] <= v:
            pop()
        if stack:
            res[i] = stack[-1]
        push(v)
    sys.stdout.write(" ".join(map(str, res)) + "\n")


main()
