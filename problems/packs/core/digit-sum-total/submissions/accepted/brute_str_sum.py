# Brute force: for every query, add up the characters of str(i) for i = 1..n; O(q * n * digits).
q = int(input())
for _ in range(q):
    n = int(input())
    total = 0
    for i in range(1, n + 1):
        total += sum(int(c) for c in str(i))
    print(total)
