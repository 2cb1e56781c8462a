# Top-down recursion ways(i, a) = ways(i + 1, a) + ways(i, a - coin_i), memoised in a dict
# keyed by (i, a): O(k * A) states, each a Python function call.
import sys

MOD = 1_000_000_007


def main():
    data = sys.stdin.read().split()
    k, amount = int(data[0]), int(data[1])
    coins = [int(x) for x in data[2:2 + k]]
    memo = {}

    def ways(i, a):
        if a == 0:
            return 1
        if i == k:
            return 0
        key = (i, a)
        if key in memo:
            return memo[key]
        result = ways(i + 1, a)
        if coins[i] <= a:
            result += ways(i, a - coins[i])
        result %= MOD
        memo[key] = result
        return result

    print(ways(0, amount))


sys.setrecursionlimit(1_000_000)
main()
