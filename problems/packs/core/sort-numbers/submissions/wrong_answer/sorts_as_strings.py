# Sorts the numbers as text: "10" comes before "9" and "-5" before "-10".
import sys

data = sys.stdin.read().split()
n = int(data[0])
print(" ".join(sorted(data[1:n + 1])))
