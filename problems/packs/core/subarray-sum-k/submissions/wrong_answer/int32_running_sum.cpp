// Brute force whose running sum is a 32-bit int: it overflows on large values.
#include <cstdio>
#include <vector>
using namespace std;

int main() {
    int n;
    long long k;
    if (scanf("%d %lld", &n, &k) != 2) return 0;
    vector<int> a(n);
    for (auto &x : a) scanf("%d", &x);
    long long count = 0;
    for (int i = 0; i < n; i++) {
        int s = 0;
        for (int j = i; j < n; j++) {
            s += a[j];
            if (s == k) count++;
        }
    }
    printf("%lld\n", count);
}
