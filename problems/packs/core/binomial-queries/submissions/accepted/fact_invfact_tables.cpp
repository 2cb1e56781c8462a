// Factorial and inverse factorial tables, O(N + q), fast stream I/O.
#include <iostream>
#include <string>
#include <vector>
using namespace std;

const long long MOD = 1000000007LL;

long long power(long long b, long long e) {
    long long r = 1;
    while (e > 0) {
        if (e & 1) r = r * b % MOD;
        b = b * b % MOD;
        e >>= 1;
    }
    return r;
}

int main() {
    ios::sync_with_stdio(false);
    cin.tie(nullptr);
    int q;
    if (!(cin >> q)) return 0;
    vector<int> ns(q), ks(q);
    int top = 0;
    for (int i = 0; i < q; i++) {
        cin >> ns[i] >> ks[i];
        if (ns[i] > top) top = ns[i];
    }
    vector<long long> fact(top + 1, 1), inv_fact(top + 1, 1);
    for (int i = 1; i <= top; i++) fact[i] = fact[i - 1] * i % MOD;
    inv_fact[top] = power(fact[top], MOD - 2);
    for (int i = top; i > 0; i--) inv_fact[i - 1] = inv_fact[i] * i % MOD;
    string out;
    for (int i = 0; i < q; i++) {
        out += to_string(fact[ns[i]] * inv_fact[ks[i]] % MOD * inv_fact[ns[i] - ks[i]] % MOD);
        out += '\n';
    }
    cout << out;
}
