#include <cstdio>
#include <unordered_map>
#include <vector>
using namespace std;

int main() {
    int n, k;
    if (scanf("%d %d", &n, &k) != 2) return 0;
    vector<long long> a(n);
    for (auto &x : a) scanf("%lld", &x);
    unordered_map<long long, int> cnt;
    cnt.reserve(2 * k + 1);
    for (int i = 0; i < n; i++) {
        cnt[a[i]]++;
        if (i >= k) {
            auto it = cnt.find(a[i - k]);
            if (--it->second == 0) cnt.erase(it);
        }
        if (i >= k - 1) printf(i > k - 1 ? " %zu" : "%zu", cnt.size());
    }
    printf("\n");
}
