# sys.stdin.readline per number, list.sort(), print(*values): O(n log n), lighter line I/O.
import sys

readline = sys.stdin.readline
n = int(readline())
values = [int(readline()) for _ in range(n)]
values.sort()
print(*values)
