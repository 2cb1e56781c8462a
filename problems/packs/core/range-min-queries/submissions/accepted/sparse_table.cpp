// Sparse table: O(n log n) build, O(1) per query, fast stream I/O.
#include <algorithm>
#include <iostream>
#include <vector>
using namespace std;

int main() {
    ios::sync_with_stdio(false);
    cin.tie(nullptr);
    int n, q;
    if (!(cin >> n >> q)) return 0;
    vector<vector<int>> table(1, vector<int>(n));
    for (auto &x : table[0]) cin >> x;
    for (int k = 1; (1 << k) <= n; k++) {
        const vector<int> &prev = table[k - 1];
        int len = n - (1 << k) + 1, half = 1 << (k - 1);
        vector<int> cur(len);
        for (int i = 0; i < len; i++) cur[i] = min(prev[i], prev[i + half]);
        table.push_back(move(cur));
    }
    string out;
    while (q--) {
        int l, r;
        cin >> l >> r;
        l--;  // [l, r)
        int k = 31 - __builtin_clz(r - l);
        out += to_string(min(table[k][l], table[k][r - (1 << k)]));
        out += '\n';
    }
    cout << out;
}
