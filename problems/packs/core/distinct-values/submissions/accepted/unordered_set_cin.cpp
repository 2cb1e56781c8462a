// cin with sync off, values into a reserved std::unordered_set: O(n) expected.
#include <iostream>
#include <unordered_set>
using namespace std;

int main() {
    ios::sync_with_stdio(false);
    cin.tie(nullptr);
    int n;
    if (!(cin >> n)) return 0;
    unordered_set<long long> seen;
    seen.reserve(2 * n);
    for (int i = 0; i < n; i++) {
        long long x;
        cin >> x;
        seen.insert(x);
    }
    cout << seen.size() << "\n";
}
