# Keep the best value seen so far in a Python loop.
n = int(input())
numbers = input().split()
best = int(numbers[0])
for token in numbers:
    value = int(token)
    if value > best:
        best = value
print(best)
