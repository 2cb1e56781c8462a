# Keep a sorted list and bisect.insort every number as it is read: O(n^2) element moves in the worst case.
from bisect import insort

n = int(input())
ordered = []
for _ in range(n):
    insort(ordered, int(input()))
print(" ".join(map(str, ordered)))
