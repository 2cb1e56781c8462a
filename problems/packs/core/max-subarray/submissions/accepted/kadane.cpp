// Kadane's scan with 64-bit sums: O(n).
#include <iostream>
using namespace std;

int main() {
    ios::sync_with_stdio(false);
    cin.tie(nullptr);
    int n;
    if (!(cin >> n)) return 0;
    long long current = 0, best = 0;
    for (int i = 0; i < n; i++) {
        long long x;
        cin >> x;
        current = (i == 0 || current < 0) ? x : current + x;
        if (i == 0 || current > best) best = current;
    }
    cout << best << "\n";
}
