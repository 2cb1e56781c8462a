# Forgets to convert: max of the strings compares them letter by letter ("9" > "10").
n = int(input())
numbers = input().split()
print(max(numbers))
