# Try every shift p and compare letter by letter until a mismatch, O(n^2).
s = input().strip()
n = len(s)
for p in range(1, n + 1):
    ok = True
    for i in range(n - p):
        if s[i] != s[i + p]:
            ok = False
            break
    if ok:
        print(p)
        break
