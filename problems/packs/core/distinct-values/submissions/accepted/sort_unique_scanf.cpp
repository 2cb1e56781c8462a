// scanf every value, std::sort then std::unique: O(n log n).
#include <algorithm>
#include <cstdio>
#include <vector>
using namespace std;

int main() {
    int n;
    if (scanf("%d", &n) != 1) return 0;
    vector<long long> a(n);
    for (auto &x : a) scanf("%lld", &x);
    sort(a.begin(), a.end());
    printf("%d\n", (int)(unique(a.begin(), a.end()) - a.begin()));
}
