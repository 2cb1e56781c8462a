# 1D DP done with whole-slice operations at C speed: for a small coin c, each residue class
# a = r, r + c, r + 2c, ... is a running sum (itertools.accumulate); for a large coin, blocks of
# c amounts are added to the block before them. O(k * A) element work, O(k * sqrt(A)) Python steps.
import sys
from itertools import accumulate
from operator import add

MOD = 1_000_000_007


def main():
    data = sys.stdin.buffer.read().split()
    k, amount = int(data[0]), int(data[1])
    dp = [1] + [0] * amount
    for c in map(int, data[2:2 + k]):
        if c > amount:
            continue
        if c * c <= amount:
            for r in range(c):
                dp[r::c] = accumulate(dp[r::c])
        else:
            for s in range(c, amount + 1, c):
                dp[s:s + c] = map(add, dp[s:s + c], dp[s - c:s])
        dp = list(map(MOD.__rmod__, dp))
    print(dp[amount])


main()
