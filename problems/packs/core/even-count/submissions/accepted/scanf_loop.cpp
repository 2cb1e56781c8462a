// scanf every number and test its lowest bit: O(n).
#include <cstdio>

int main() {
    int n;
    if (scanf("%d", &n) != 1) return 0;
    int count = 0;
    for (int i = 0; i < n; i++) {
        long long x;
        scanf("%lld", &x);
        if (x % 2 == 0) count++;
    }
    printf("%d\n", count);
}
