# Looks at the first digit of each number instead of the last.
n = int(input())
tokens = input().split()
print(sum(1 for t in tokens if t[0] in "02468"))
