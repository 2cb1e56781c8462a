# input() for every line, counting occurrences in a dict, answer = number of keys: O(n) expected.
n = int(input())
counts = {}
for _ in range(n):
    x = int(input())
    if x in counts:
        counts[x] += 1
    else:
        counts[x] = 1
print(len(counts))
