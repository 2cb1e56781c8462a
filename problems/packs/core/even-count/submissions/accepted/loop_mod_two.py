# The plain way: a list of ints and a loop testing x % 2.
n = int(input())
numbers = list(map(int, input().split()))
count = 0
for x in numbers:
    if x % 2 == 0:
        count += 1
print(count)
