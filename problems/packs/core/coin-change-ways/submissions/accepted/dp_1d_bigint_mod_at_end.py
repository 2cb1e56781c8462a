# One array over amounts with exact (arbitrarily large) integers, reduced only at the end:
# O(k * A) additions of numbers hundreds of bits long.
import sys

data = sys.stdin.read().split()
k, amount = int(data[0]), int(data[1])
coins = [int(x) for x in data[2:2 + k]]
dp = [1] + [0] * amount
for c in coins:
    for a in range(c, amount + 1):
        dp[a] += dp[a - c]
print(dp[amount] % 1_000_000_007)
