// Factorial table in 32-bit ints: fact[i - 1] * i overflows before the modulo is taken.
#include <cstdio>
#include <vector>
using namespace std;

const int MOD = 1000000007;

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
    int q;
    if (scanf("%d", &q) != 1) return 0;
    vector<int> ns(q), ks(q);
    int top = 0;
    for (int i = 0; i < q; i++) {
        scanf("%d %d", &ns[i], &ks[i]);
        if (ns[i] > top) top = ns[i];
    }
    vector<int> fact(top + 1, 1);
    for (int i = 1; i <= top; i++) fact[i] = (unsigned)fact[i - 1] * (unsigned)i % MOD;
    for (int i = 0; i < q; i++) {
        long long den = (long long)fact[ks[i]] * fact[ns[i] - ks[i]] % MOD;
        printf("%lld\n", fact[ns[i]] * power(den, MOD - 2) % MOD);
    }
}
