// Full 2D table of 64-bit values over items and capacities: O(n*W) time and memory.
#include <algorithm>
#include <cstdio>
#include <vector>
using namespace std;

int main() {
    int n, capacity;
    if (scanf("%d %d", &n, &capacity) != 2) return 0;
    vector<int> w(n);
    vector<long long> v(n);
    for (int i = 0; i < n; i++) scanf("%d %lld", &w[i], &v[i]);
    vector<vector<long long>> best(n + 1, vector<long long>(capacity + 1, 0));
    for (int i = 1; i <= n; i++)
        for (int c = 0; c <= capacity; c++) {
            best[i][c] = best[i - 1][c];
            if (c >= w[i - 1]) best[i][c] = max(best[i][c], best[i - 1][c - w[i - 1]] + v[i - 1]);
        }
    printf("%lld\n", best[n][capacity]);
}
