// Scan every range element by element; O(n * q).
#include <cstdio>
#include <vector>
using namespace std;

int main() {
    int n, q;
    if (scanf("%d %d", &n, &q) != 2) return 0;
    vector<long long> a(n);
    for (auto &x : a) scanf("%lld", &x);
    while (q--) {
        int l, r;
        scanf("%d %d", &l, &r);
        long long best = a[l - 1];
        for (int i = l; i < r; i++)
            if (a[i] < best) best = a[i];
        printf("%lld\n", best);
    }
}
