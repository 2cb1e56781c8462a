# The plain way: input() for each line, a list of ints, the built-in max.
n = int(input())
numbers = list(map(int, input().split()))
print(max(numbers))
