import sys

data = sys.stdin.read().split()
n = int(data[0])
a = [int(x) for x in data[1:n + 1]]
dp = []
for i, x in enumerate(a):
    best = 0
    for y, d in zip(a, dp):
        if y < x and d > best:
            best = d
    dp.append(best + 1)
print(max(dp))
