// Brute force: digit sum of every i = 1..n for every query; O(q * n * digits).
#include <cstdio>

int main() {
    int q;
    if (scanf("%d", &q) != 1) return 0;
    while (q--) {
        long long n;
        scanf("%lld", &n);
        long long total = 0;
        for (long long i = 1; i <= n; i++)
            for (long long x = i; x > 0; x /= 10) total += x % 10;
        printf("%lld\n", total);
    }
}
