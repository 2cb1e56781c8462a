// Sort the stretches by left end and sweep, extending the current piece while they overlap: O(n log n).
#include <algorithm>
#include <cstdio>
#include <utility>
#include <vector>
using namespace std;

int main() {
    int n;
    if (scanf("%d", &n) != 1) return 0;
    vector<pair<long long, long long>> iv(n);
    for (auto &p : iv) scanf("%lld %lld", &p.first, &p.second);
    sort(iv.begin(), iv.end());
    long long total = 0, cl = iv[0].first, cr = iv[0].second;
    for (auto &p : iv) {
        if (p.first > cr) {
            total += cr - cl;
            cl = p.first;
            cr = p.second;
        } else if (p.second > cr) {
            cr = p.second;
        }
    }
    total += cr - cl;
    printf("%lld\n", total);
}
