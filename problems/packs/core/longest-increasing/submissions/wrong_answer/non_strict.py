import sys
from bisect import bisect_right

data = sys.stdin.read().split()
n = int(data[0])
tails = []
for x in map(int, data[1:n + 1]):
    i = bisect_right(tails, x)  # lets equal values extend a run: non-decreasing, not increasing
    if i == len(tails):
        tails.append(x)
    else:
        tails[i] = x
print(len(tails))
