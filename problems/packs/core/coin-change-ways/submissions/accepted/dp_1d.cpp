// 1D DP over amounts, coins in the outer loop: O(k * A).
#include <cstdio>
#include <vector>
using namespace std;

int main() {
    const int MOD = 1000000007;
    int k, amount;
    if (scanf("%d %d", &k, &amount) != 2) return 0;
    vector<int> coins(k);
    for (auto &c : coins) scanf("%d", &c);
    vector<int> dp(amount + 1, 0);
    dp[0] = 1;
    for (int c : coins)
        for (int a = c; a <= amount; a++) {
            dp[a] += dp[a - c];
            if (dp[a] >= MOD) dp[a] -= MOD;
        }
    printf("%d\n", dp[amount]);
}
