// Classic DP with two rolling rows of ints: O(|a|*|b|) time, O(|b|) memory.
#include <iostream>
#include <string>
#include <vector>
using namespace std;

int main() {
    ios::sync_with_stdio(false);
    cin.tie(nullptr);
    string a, b;
    if (!(cin >> a >> b)) return 0;
    int m = b.size();
    vector<int> prev(m + 1, 0), cur(m + 1, 0);
    for (char ch : a) {
        cur[0] = 0;
        for (int j = 0; j < m; j++) {
            if (ch == b[j]) cur[j + 1] = prev[j] + 1;
            else cur[j + 1] = max(prev[j + 1], cur[j]);
        }
        swap(prev, cur);
    }
    cout << prev[m] << "\n";
}
