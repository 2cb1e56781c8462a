# Forgets that 0 is even: only positive numbers are counted.
n = int(input())
numbers = list(map(int, input().split()))
print(sum(1 for x in numbers if x > 0 and x % 2 == 0))
