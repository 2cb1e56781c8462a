from functools import reduce

n = int(input())
numbers = []
while len(numbers) < n:
    line = input()
    for token in line.split(" "):
        if token != "":
            numbers.append(int(token))
total = reduce(lambda acc, x: acc + x, numbers, 0)
print(total)
