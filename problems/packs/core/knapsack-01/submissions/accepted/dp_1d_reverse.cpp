// One 64-bit array, capacities updated from high to low per item: O(n*W) time, O(W) memory.
#include <algorithm>
#include <iostream>
#include <vector>
using namespace std;

int main() {
    ios::sync_with_stdio(false);
    cin.tie(nullptr);
    int n, capacity;
    if (!(cin >> n >> capacity)) return 0;
    vector<long long> best(capacity + 1, 0);
    for (int i = 0; i < n; i++) {
        int w;
        long long v;
        cin >> w >> v;
        for (int c = capacity; c >= w; c--) best[c] = max(best[c], best[c - w] + v);
    }
    cout << best[capacity] << "\n";
}
