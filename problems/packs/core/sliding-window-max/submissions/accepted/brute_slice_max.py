# Takes max() of every window slice, printing each maximum with its own print(): O(n * w).
n, w = map(int, input().split())
a = list(map(int, input().split()))
for i in range(n - w + 1):
    print(max(a[i:i + w]), end=" ")
print()
