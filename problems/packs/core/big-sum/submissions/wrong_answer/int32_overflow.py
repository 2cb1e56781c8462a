# Ported from C code that kept the total in a 32-bit int.
import sys

data = sys.stdin.buffer.read().split()
n = int(data[0])
total = 0
for x in data[1 : n + 1]:
    total = (total + int(x) + 2**31) % 2**32 - 2**31
print(total)
