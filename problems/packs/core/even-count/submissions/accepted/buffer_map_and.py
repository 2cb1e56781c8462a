# Whole input as bytes, then n minus the number of odd values, all in C (map, int, &).
import sys

data = sys.stdin.buffer.read().split()
n = int(data[0])
print(n - sum(map((1).__and__, map(int, data[1 : n + 1]))))
