t = input().strip()
p = input().strip()
n, m = len(t), len(p)
count = 0
for i in range(n - m + 1):
    ok = True
    for j in range(m):
        if t[i + j] != p[j]:
            ok = False
            break
    if ok:
        count += 1
print(count)
