# Calls the built-in max once per number inside a Python loop.
n = int(input())
numbers = list(map(int, input().split()))
best = numbers[0]
for x in numbers:
    best = max(best, x)
print(best)
