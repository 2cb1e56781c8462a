// cin >> string into std::map<string,int>; the map is ordered, so the first maximum wins: O(m log m).
#include <iostream>
#include <map>
#include <string>
using namespace std;

int main() {
    ios::sync_with_stdio(false);
    cin.tie(nullptr);
    long long m;
    if (!(cin >> m)) return 0;
    map<string, int> counts;
    string w;
    for (long long i = 0; i < m; i++) {
        cin >> w;
        counts[w]++;
    }
    string best;
    int best_count = 0;
    for (auto &kv : counts)
        if (kv.second > best_count) { best = kv.first; best_count = kv.second; }
    cout << best << " " << best_count << "\n";
}
