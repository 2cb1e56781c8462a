# Off by one: the loop stops before the last number.
n = int(input())
numbers = list(map(int, input().split()))
best = numbers[0]
for i in range(1, n - 1):
    if numbers[i] > best:
        best = numbers[i]
print(best)
