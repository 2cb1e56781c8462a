#include <algorithm>
#include <iostream>
#include <string>
#include <vector>
using namespace std;

int main() {
    ios::sync_with_stdio(false);
    cin.tie(nullptr);
    int n, k;
    if (!(cin >> n >> k)) return 0;
    vector<long long> a(n);
    for (auto &x : a) cin >> x;
    vector<long long> sorted_vals(a);
    sort(sorted_vals.begin(), sorted_vals.end());
    sorted_vals.erase(unique(sorted_vals.begin(), sorted_vals.end()), sorted_vals.end());
    vector<int> id(n), cnt(sorted_vals.size(), 0);
    for (int i = 0; i < n; i++)
        id[i] = lower_bound(sorted_vals.begin(), sorted_vals.end(), a[i]) - sorted_vals.begin();
    int distinct = 0;
    string out;
    for (int i = 0; i < n; i++) {
        if (cnt[id[i]]++ == 0) distinct++;
        if (i >= k && --cnt[id[i - k]] == 0) distinct--;
        if (i >= k - 1) {
            if (i > k - 1) out += ' ';
            out += to_string(distinct);
        }
    }
    out += '\n';
    cout << out;
}
