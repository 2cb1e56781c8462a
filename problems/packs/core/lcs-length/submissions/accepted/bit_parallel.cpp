// Bit-parallel LCS (Allison-Dix / Hyyro) on arrays of 64-bit words with manual carry/borrow: O(|a|*|b|/64).
#include <cstdint>
#include <iostream>
#include <string>
#include <vector>
using namespace std;
typedef unsigned long long u64;

int main() {
    ios::sync_with_stdio(false);
    cin.tie(nullptr);
    string a, b;
    if (!(cin >> a >> b)) return 0;
    if (a.size() < b.size()) swap(a, b);
    int m = b.size();
    int words = (m + 63) / 64;
    vector<vector<u64>> mask(26, vector<u64>(words, 0));
    for (int j = 0; j < m; j++) mask[b[j] - 'a'][j >> 6] |= 1ULL << (j & 63);
    vector<u64> v(words, ~0ULL);
    if (m % 64) v[words - 1] = (1ULL << (m % 64)) - 1;
    u64 last = v[words - 1];
    for (char ch : a) {
        const vector<u64> &mk = mask[ch - 'a'];
        u64 carry = 0, borrow = 0;
        for (int w = 0; w < words; w++) {
            u64 x = v[w], u = x & mk[w];
            // sum = x + u + carry
            u64 s = x + u;
            u64 c1 = s < x;
            u64 s2 = s + carry;
            u64 c2 = s2 < s;
            carry = c1 | c2;
            // diff = x - u - borrow
            u64 d = x - u;
            u64 b1 = x < u;
            u64 d2 = d - borrow;
            u64 b2 = d < borrow;
            borrow = b1 | b2;
            v[w] = s2 | d2;
        }
        v[words - 1] &= last;
    }
    int ones = 0;
    for (int w = 0; w < words; w++) ones += __builtin_popcountll(v[w]);
    cout << m - ones << "\n";
}
