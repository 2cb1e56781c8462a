// Scan that starts the running minimum at 0, as if values were never positive.
#include <cstdio>
using namespace std;

int a[200005];

int main() {
    int n, q;
    if (scanf("%d %d", &n, &q) != 2) return 0;
    for (int i = 1; i <= n; i++) scanf("%d", &a[i]);
    while (q--) {
        int l, r;
        scanf("%d %d", &l, &r);
        int best = 0;
        for (int i = l; i <= r; i++)
            if (a[i] < best) best = a[i];
        printf("%d\n", best);
    }
}
