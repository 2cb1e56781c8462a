// Prefix function: the shortest period is n minus the longest proper border, O(n).
#include <cstdio>
#include <cstring>
#include <vector>
using namespace std;

static char buf[1 << 16];

int main() {
    if (scanf("%65535s", buf) != 1) return 0;
    int n = strlen(buf);
    vector<int> pi(n, 0);
    for (int i = 1; i < n; i++) {
        int k = pi[i - 1];
        while (k > 0 && buf[i] != buf[k]) k = pi[k - 1];
        if (buf[i] == buf[k]) k++;
        pi[i] = k;
    }
    printf("%d\n", n - pi[n - 1]);
}
