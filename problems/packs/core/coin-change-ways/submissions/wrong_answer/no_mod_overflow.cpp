// Counts in 64-bit integers and only takes the remainder at the end: the counts overflow.
#include <cstdio>
#include <vector>
using namespace std;

int main() {
    int k, amount;
    if (scanf("%d %d", &k, &amount) != 2) return 0;
    vector<int> coins(k);
    for (auto &c : coins) scanf("%d", &c);
    vector<unsigned long long> dp(amount + 1, 0);
    dp[0] = 1;
    for (int c : coins)
        for (int a = c; a <= amount; a++) dp[a] += dp[a - c];
    printf("%llu\n", dp[amount] % 1000000007ULL);
}
