# Bottom-up table stored in a dict keyed by (coins used, amount), filled coin by coin:
# O(k * A) entries, each a tuple key and a hash lookup.
MOD = 1_000_000_007

k, amount = map(int, input().split())
coins = list(map(int, input().split()))
table = {}
for a in range(amount + 1):
    table[(0, a)] = 1 if a == 0 else 0
for i in range(1, k + 1):
    c = coins[i - 1]
    for a in range(amount + 1):
        total = table[(i - 1, a)]
        if a >= c:
            total += table[(i, a - c)]
        table[(i, a)] = total % MOD
print(table[(k, amount)])
