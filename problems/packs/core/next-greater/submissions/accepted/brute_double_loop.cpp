// Brute force: for each position scan to the right for a strictly greater value, O(n^2).
#include <iostream>
#include <vector>
using namespace std;

int main() {
    int n;
    if (!(cin >> n)) return 0;
    vector<long long> a(n);
    for (auto &x : a) cin >> x;
    for (int i = 0; i < n; i++) {
        long long ans = -1;
        for (int j = i + 1; j < n; j++)
            if (a[j] > a[i]) { ans = a[j]; break; }
        cout << ans << (i + 1 < n ? " " : "\n");
    }
}
