# Check every substring by comparing the slice with its reverse, O(n^3) letter copies.
s = input().strip()
n = len(s)
count = 0
for i in range(n):
    for j in range(i + 1, n + 1):
        t = s[i:j]
        if t == t[::-1]:
            count += 1
print(count)
