// Scans every window for its maximum: O(n * w).
#include <cstdio>
#include <vector>
using namespace std;

int main() {
    int n, w;
    if (scanf("%d %d", &n, &w) != 2) return 0;
    vector<long long> a(n);
    for (auto &x : a) scanf("%lld", &x);
    for (int i = 0; i + w <= n; i++) {
        long long best = a[i];
        for (int j = i + 1; j < i + w; j++)
            if (a[j] > best) best = a[j];
        printf("%lld%c", best, i + w == n ? '\n' : ' ');
    }
}
