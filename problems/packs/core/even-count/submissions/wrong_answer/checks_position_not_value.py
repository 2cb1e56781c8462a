# Tests the position i instead of the number at that position.
n = int(input())
numbers = list(map(int, input().split()))
count = 0
for i in range(n):
    if i % 2 == 0:
        count += 1
print(count)
