# One array over amounts, coins in the outer loop, reduced modulo at every update: O(k * A).
import sys

MOD = 1_000_000_007
data = sys.stdin.buffer.read().split()
k, amount = int(data[0]), int(data[1])
coins = [int(x) for x in data[2:2 + k]]
dp = [0] * (amount + 1)
dp[0] = 1
for c in coins:
    for a in range(c, amount + 1):
        dp[a] = (dp[a] + dp[a - c]) % MOD
print(dp[amount])
