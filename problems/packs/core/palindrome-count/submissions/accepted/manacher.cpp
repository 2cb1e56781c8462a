// Manacher's algorithm with separate odd and even radii, O(n).
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <vector>
using namespace std;

static char s[1 << 16];

int main() {
    if (scanf("%65535s", s) != 1) return 0;
    int n = strlen(s);
    vector<int> d1(n), d2(n);
    long long count = 0;
    for (int i = 0, l = 0, r = -1; i < n; i++) {
        int k = (i > r) ? 1 : min(d1[l + r - i], r - i + 1);
        while (i - k >= 0 && i + k < n && s[i - k] == s[i + k]) k++;
        d1[i] = k;
        count += k;
        if (i + k - 1 > r) { l = i - k + 1; r = i + k - 1; }
    }
    for (int i = 0, l = 0, r = -1; i < n; i++) {
        int k = (i > r) ? 0 : min(d2[l + r - i + 1], r - i + 1);
        while (i - k - 1 >= 0 && i + k < n && s[i - k - 1] == s[i + k]) k++;
        d2[i] = k;
        count += k;
        if (i + k - 1 > r) { l = i - k; r = i + k - 1; }
    }
    printf("%lld\n", count);
}
