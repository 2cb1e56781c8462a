#include <cstdio>
#include <set>
#include <vector>
using namespace std;

int main() {
    int n, k;
    if (scanf("%d %d", &n, &k) != 2) return 0;
    vector<long long> a(n);
    for (auto &x : a) scanf("%lld", &x);
    for (int i = 0; i + k <= n; i++) {
        set<long long> s(a.begin() + i, a.begin() + i + k);
        printf(i ? " %zu" : "%zu", s.size());
    }
    printf("\n");
}
