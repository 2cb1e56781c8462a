import sys

data = sys.stdin.read().split()
n = int(data[0])
values = [int(x) for x in data[1 : n + 1]]
print(sum(values))
