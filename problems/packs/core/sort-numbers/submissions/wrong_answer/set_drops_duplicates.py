# Sorts a set of the numbers, so repeated values are printed only once.
import sys

data = sys.stdin.buffer.read().split()
n = int(data[0])
print(" ".join(map(str, sorted(set(map(int, data[1:n + 1]))))))
