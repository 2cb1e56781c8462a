# Mixes up even and odd: counts the numbers with remainder 1.
n = int(input())
numbers = list(map(int, input().split()))
print(sum(1 for x in numbers if x % 2 == 1))
