#include <algorithm>
#include <cstdio>
#include <vector>
using namespace std;

int main() {
    int n;
    if (scanf("%d", &n) != 1) return 0;
    vector<long long> a(n);
    for (auto &x : a) scanf("%lld", &x);
    vector<long long> vals(a);
    sort(vals.begin(), vals.end());
    vals.erase(unique(vals.begin(), vals.end()), vals.end());
    int m = vals.size();
    vector<int> tree(m + 1, 0);
    long long count = 0;
    for (int i = 0; i < n; i++) {
        int r = lower_bound(vals.begin(), vals.end(), a[i]) - vals.begin() + 1;
        long long s = 0;
        for (int j = r; j > 0; j -= j & -j) s += tree[j];
        count += i - s;
        for (int j = r; j <= m; j += j & -j) tree[j]++;
    }
    printf("%lld\n", count);
}
