# Set of the raw byte tokens, no int() at all (numbers are written without leading zeros): O(n).
import sys

data = sys.stdin.buffer.read().split()
n = int(data[0])
print(len(set(data[1:n + 1])))
