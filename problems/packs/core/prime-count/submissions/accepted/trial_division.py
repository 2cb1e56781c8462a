n = int(input())
count = 0
for k in range(2, n + 1):
    prime = True
    d = 2
    while d * d <= k:
        if k % d == 0:
            prime = False
            break
        d += 1
    if prime:
        count += 1
print(count)
