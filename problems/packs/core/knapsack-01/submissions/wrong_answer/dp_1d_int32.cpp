// Correct 1D DP, but values are summed in 32-bit ints, which wrap once the total passes 2^31.
#include <cstdio>
#include <vector>
using namespace std;

int main() {
    int n, capacity;
    if (scanf("%d %d", &n, &capacity) != 2) return 0;
    vector<int> best(capacity + 1, 0);
    for (int i = 0; i < n; i++) {
        int w, v;
        scanf("%d %d", &w, &v);
        for (int c = capacity; c >= w; c--) {
            int candidate = (int)((unsigned)best[c - w] + (unsigned)v);
            if (candidate > best[c]) best[c] = candidate;
        }
    }
    printf("%d\n", best[capacity]);
}
