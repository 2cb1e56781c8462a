# Read everything at once, sorted(map(int, tokens)), one joined line: O(n log n) with bulk I/O.
import sys

data = sys.stdin.read().split()
n = int(data[0])
print(" ".join(map(str, sorted(map(int, data[1:n + 1])))))
