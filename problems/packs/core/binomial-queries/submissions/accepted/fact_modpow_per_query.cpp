// Factorial table, then a square-and-multiply modular inverse per query, cin/cout with endl.
#include <iostream>
#include <vector>
using namespace std;

const long long MOD = 1000000007LL;

long long power(long long b, long long e) {
    long long r = 1;
    b %= MOD;
    while (e > 0) {
        if (e & 1) r = r * b % MOD;
        b = b * b % MOD;
        e >>= 1;
    }
    return r;
}

int main() {
    int q;
    if (!(cin >> q)) return 0;
    vector<int> ns(q), ks(q);
    int top = 0;
    for (int i = 0; i < q; i++) {
        cin >> ns[i] >> ks[i];
        if (ns[i] > top) top = ns[i];
    }
    vector<long long> fact(top + 1, 1);
    for (int i = 1; i <= top; i++) fact[i] = fact[i - 1] * i % MOD;
    for (int i = 0; i < q; i++) {
        long long den = fact[ks[i]] * fact[ns[i] - ks[i]] % MOD;
        cout << fact[ns[i]] * power(den, MOD - 2) % MOD << endl;
    }
}
