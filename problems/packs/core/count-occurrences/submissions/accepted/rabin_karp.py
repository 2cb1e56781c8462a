import sys

data = sys.stdin.read().split()
t, p = data[0], data[1]
n, m = len(t), len(p)
MOD = (1 << 61) - 1
BASE = 131
count = 0
if m <= n:
    hp = 0
    for ch in p:
        hp = (hp * BASE + ord(ch)) % MOD
    top = pow(BASE, m - 1, MOD)
    h = 0
    for ch in t[:m]:
        h = (h * BASE + ord(ch)) % MOD
    for i in range(n - m + 1):
        if h == hp and t[i:i + m] == p:  # confirm, so a hash collision cannot miscount
            count += 1
        if i + m < n:
            h = ((h - ord(t[i]) * top) * BASE + ord(t[i + m])) % MOD
print(count)
