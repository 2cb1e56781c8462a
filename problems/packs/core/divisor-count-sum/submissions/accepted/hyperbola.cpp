// Dirichlet hyperbola per query: D(n) = 2 * sum_{k <= sqrt n} floor(n / k) - floor(sqrt n)^2; O(q sqrt N).
#include <cstdio>

int main() {
    int q;
    if (scanf("%d", &q) != 1) return 0;
    while (q--) {
        long long n;
        scanf("%lld", &n);
        long long k = 0;
        while ((k + 1) * (k + 1) <= n) k++;
        long long total = 0;
        for (long long i = 1; i <= k; i++) total += n / i;
        printf("%lld\n", 2 * total - k * k);
    }
}
