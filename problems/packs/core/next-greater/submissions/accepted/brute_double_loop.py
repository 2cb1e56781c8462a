# Brute force: for each position scan to the right until a strictly greater value, O(n^2).
n = int(input())
a = list(map(int, input().split()))
res = []
for i in range(n):
    ans = -1
    for j in range(i + 1, n):
        if a[j] > a[i]:
            ans = a[j]
            break
    res.append(ans)
print(*res)
