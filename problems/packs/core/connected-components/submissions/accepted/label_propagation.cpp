// Min-label propagation over the edge list, forwards and backwards, until stable:
// O(m * rounds), rounds up to the diameter.
#include <iostream>
#include <vector>
using namespace std;

int main() {
    ios::sync_with_stdio(false);
    cin.tie(nullptr);
    int n, m;
    if (!(cin >> n >> m)) return 0;
    vector<int> eu(m), ev(m), label(n + 1);
    for (int i = 0; i < m; i++) cin >> eu[i] >> ev[i];
    for (int i = 0; i <= n; i++) label[i] = i;
    auto relax = [&](int i) {
        int &a = label[eu[i]], &b = label[ev[i]];
        if (a < b) { b = a; return true; }
        if (b < a) { a = b; return true; }
        return false;
    };
    bool changed = true;
    while (changed) {
        changed = false;
        for (int i = 0; i < m; i++) changed |= relax(i);
        for (int i = m - 1; i >= 0; i--) changed |= relax(i);
    }
    vector<char> used(n + 1, 0);
    int components = 0;
    for (int v = 1; v <= n; v++)
        if (!used[label[v]]) { used[label[v]] = 1; components++; }
    cout << components << "\n";
}
