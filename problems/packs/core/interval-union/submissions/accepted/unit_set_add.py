# Add every unit segment [x, x + 1] of every stretch to a set, one by one: O(sum of lengths).
n = int(input())
covered = set()
for _ in range(n):
    l, r = map(int, input().split())
    for x in range(l, r):
        covered.add(x)
print(len(covered))
