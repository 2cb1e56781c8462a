import sys

readline = sys.stdin.readline
n = int(readline())
total = 0
count = 0
while count < n:
    parts = readline().split()
    count += len(parts)
    total += sum(map(int, parts))
print(total)
