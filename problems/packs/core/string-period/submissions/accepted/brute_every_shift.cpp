// Try every shift p and compare letter by letter until a mismatch, O(n^2).
#include <iostream>
#include <string>
using namespace std;

int main() {
    string s;
    cin >> s;
    int n = s.size();
    for (int p = 1; p <= n; p++) {
        bool ok = true;
        for (int i = 0; i + p < n; i++)
            if (s[i] != s[i + p]) { ok = false; break; }
        if (ok) { cout << p << "\n"; return 0; }
    }
}
