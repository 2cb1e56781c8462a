// Prefix sums with an unordered_map of counts; O(n) expected.
#include <iostream>
#include <unordered_map>
using namespace std;

int main() {
    ios::sync_with_stdio(false);
    cin.tie(nullptr);
    int n;
    long long k;
    if (!(cin >> n >> k)) return 0;
    unordered_map<long long, long long> seen;
    seen.reserve(2 * n + 2);
    seen[0] = 1;
    long long s = 0, count = 0;
    for (int i = 0; i < n; i++) {
        long long x;
        cin >> x;
        s += x;
        auto it = seen.find(s - k);
        if (it != seen.end()) count += it->second;
        seen[s]++;
    }
    cout << count << "\n";
}
