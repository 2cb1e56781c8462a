# input() for every line, int() each value into a set: O(n) expected, slow per-line reading.
n = int(input())
seen = set()
for _ in range(n):
    seen.add(int(input()))
print(len(seen))
