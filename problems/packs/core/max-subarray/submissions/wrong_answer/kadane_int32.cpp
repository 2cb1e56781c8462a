// Kadane's scan, but the sums are kept in 32-bit ints and wrap around on big inputs.
#include <cstdio>

int main() {
    int n;
    if (scanf("%d", &n) != 1) return 0;
    int current = 0, best = 0;
    for (int i = 0; i < n; i++) {
        int x;
        scanf("%d", &x);
        current = (i == 0 || current < 0) ? x : (int)((unsigned)current + (unsigned)x);
        if (i == 0 || current > best) best = current;
    }
    printf("%d\n", best);
}
