// Check every substring with two pointers from both ends, O(n^3) on one-letter strings.
#include <iostream>
#include <string>
using namespace std;

int main() {
    string s;
    cin >> s;
    int n = s.size();
    long long count = 0;
    for (int i = 0; i < n; i++)
        for (int j = i; j < n; j++) {
            int l = i, r = j;
            while (l < r && s[l] == s[r]) { l++; r--; }
            if (l >= r) count++;
        }
    cout << count << "\n";
}
