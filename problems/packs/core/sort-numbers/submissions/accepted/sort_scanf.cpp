// Read with scanf into a vector, std::sort, print with printf: O(n log n).
#include <algorithm>
#include <cstdio>
#include <vector>
using namespace std;

int main() {
    int n;
    if (scanf("%d", &n) != 1) return 0;
    vector<int> values(n);
    for (auto &x : values) scanf("%d", &x);
    sort(values.begin(), values.end());
    for (int i = 0; i < n; i++) printf(i + 1 < n ? "%d " : "%d\n", values[i]);
}
