// scanf every number and keep the largest: O(n).
#include <cstdio>

int main() {
    int n;
    if (scanf("%d", &n) != 1) return 0;
    long long best = 0;
    for (int i = 0; i < n; i++) {
        long long x;
        scanf("%lld", &x);
        if (i == 0 || x > best) best = x;
    }
    printf("%lld\n", best);
}
