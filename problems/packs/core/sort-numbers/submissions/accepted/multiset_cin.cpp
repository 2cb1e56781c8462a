// Insert every number into a std::multiset (a balanced tree) read with synchronized cin: O(n log n).
#include <iostream>
#include <set>
using namespace std;

int main() {
    int n;
    if (!(cin >> n)) return 0;
    multiset<long long> values;
    for (int i = 0; i < n; i++) {
        long long x;
        cin >> x;
        values.insert(x);
    }
    bool first = true;
    for (long long v : values) {
        if (!first) cout << ' ';
        cout << v;
        first = false;
    }
    cout << endl;
}
