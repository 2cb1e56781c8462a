# sys.stdin.buffer.read(), set(map(int, tokens)): O(n) expected, all at C speed.
import sys

data = sys.stdin.buffer.read().split()
n = int(data[0])
print(len(set(map(int, data[1:n + 1]))))
