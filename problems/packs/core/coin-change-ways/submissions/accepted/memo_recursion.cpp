// Top-down recursion ways(i, a) = ways(i + 1, a) + ways(i, a - coin_i) with a memo table:
// O(k * A) states.
#include <cstdio>
#include <vector>
using namespace std;

static const long long MOD = 1000000007;
static int k, amount;
static vector<int> coins;
static vector<vector<int>> memo;

static long long ways(int i, int a) {
    if (a == 0) return 1;
    if (i == k) return 0;
    int &slot = memo[i][a];
    if (slot >= 0) return slot;
    long long r = ways(i + 1, a);
    if (coins[i] <= a) r += ways(i, a - coins[i]);
    slot = (int)(r % MOD);
    return slot;
}

int main() {
    if (scanf("%d %d", &k, &amount) != 2) return 0;
    coins.resize(k);
    for (auto &c : coins) scanf("%d", &c);
    memo.assign(k, vector<int>(amount + 1, -1));
    printf("%lld\n", ways(0, amount));
}
