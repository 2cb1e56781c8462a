// Mark every covered unit in a char array shifted by 5000, one unit at a time: O(sum of lengths + span).
#include <cstdio>
#include <vector>
using namespace std;

int main() {
    int n;
    if (scanf("%d", &n) != 1) return 0;
    const int offset = 5000;
    vector<char> painted(2 * offset + 1, 0);
    for (int i = 0; i < n; i++) {
        int l, r;
        scanf("%d %d", &l, &r);
        for (int x = l; x < r; x++) painted[x + offset] = 1;
    }
    long long total = 0;
    for (char c : painted) total += c;
    printf("%lld\n", total);
}
