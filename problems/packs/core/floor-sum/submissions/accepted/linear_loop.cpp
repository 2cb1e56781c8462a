#include <cstdio>

int main() {
    long long n;
    if (scanf("%lld", &n) != 1) return 0;
    long long total = 0;
    for (long long i = 1; i <= n; i++) total += n / i;
    printf("%lld\n", total);
    return 0;
}
