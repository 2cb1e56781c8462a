# Amounts in the outer loop, coins in the inner one: counts ordered sequences of coins, so
# 1+2 and 2+1 are counted twice.
import sys

MOD = 1_000_000_007
data = sys.stdin.buffer.read().split()
k, amount = int(data[0]), int(data[1])
coins = [int(x) for x in data[2:2 + k]]
dp = [0] * (amount + 1)
dp[0] = 1
for a in range(1, amount + 1):
    for c in coins:
        if c <= a:
            dp[a] = (dp[a] + dp[a - c]) % MOD
print(dp[amount])
