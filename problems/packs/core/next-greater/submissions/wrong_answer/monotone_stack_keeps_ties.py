# Monotone stack from the right that pops only strictly smaller values, so an equal value wrongly counts as greater.
import sys


def main():
    data = sys.stdin.buffer.read().split()
    n = int(data[0])
    a = list(map(int, data[1:1 + n]))
    res = [-1] * n
    stack = []
    for i in range(n - 1, -1, -1):
        v = a[i]
        while stack and stack[-1] < v:  # bug: should also pop values equal to v
            stack.pop()
        if stack:
            res[i] = stack[-1]
        stack.append(v)
    print(" ".join(map(str, res)))


main()
