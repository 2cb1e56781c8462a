# Monotone stack of unanswered indices, left to right, read with input(), O(n).
n = int(input())
a = list(map(int, input().split()))
res = [-1] * n
stack = []
for j in range(n):
    x = a[j]
    while stack and a[stack[-1]] < x:
        res[stack.pop()] = x
    stack.append(j)
print(*res)
