// Brute force: every start, running 64-bit sum over every end; O(n^2).
#include <cstdio>
#include <vector>
using namespace std;

int main() {
    int n;
    long long k;
    if (scanf("%d %lld", &n, &k) != 2) return 0;
    vector<long long> a(n);
    for (auto &x : a) scanf("%lld", &x);
    long long count = 0;
    for (int i = 0; i < n; i++) {
        long long s = 0;
        for (int j = i; j < n; j++) {
            s += a[j];
            if (s == k) count++;
        }
    }
    printf("%lld\n", count);
}
