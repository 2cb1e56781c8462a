# Whole input as bytes, one split, max over map(int): every step runs in C.
import sys

data = sys.stdin.buffer.read().split()
n = int(data[0])
print(max(map(int, data[1 : n + 1])))
