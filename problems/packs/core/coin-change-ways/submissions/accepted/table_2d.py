# Full 2D table: ways[i][a] uses only the first i coins; one row per coin: O(k * A) time and memory.
MOD = 1_000_000_007

k, amount = map(int, input().split())
coins = list(map(int, input().split()))
ways = [[0] * (amount + 1) for _ in range(k + 1)]
ways[0][0] = 1
for i in range(1, k + 1):
    c = coins[i - 1]
    prev, row = ways[i - 1], ways[i]
    for a in range(amount + 1):
        total = prev[a]
        if a >= c:
            total += row[a - c]
        row[a] = total % MOD
print(ways[k][amount])
