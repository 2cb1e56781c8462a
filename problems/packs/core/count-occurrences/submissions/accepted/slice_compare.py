t = input().strip()
p = input().strip()
m = len(p)
count = 0
for i in range(len(t) - m + 1):
    if t[i:i + m] == p:
        count += 1
print(count)
