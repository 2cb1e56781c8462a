n = int(input())
total = 0
count = 0
while count < n:
    for token in input().split():
        total += int(token)
        count += 1
print(total)
