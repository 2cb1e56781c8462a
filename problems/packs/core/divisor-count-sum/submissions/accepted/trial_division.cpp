// Trial division up to sqrt(i) for every i up to the largest query, then prefix sums: O(N sqrt N).
#include <cstdio>
#include <vector>
using namespace std;

int main() {
    int q;
    if (scanf("%d", &q) != 1) return 0;
    vector<int> queries(q);
    int top = 1;
    for (auto &n : queries) {
        scanf("%d", &n);
        if (n > top) top = n;
    }
    vector<long long> prefix(top + 1, 0);
    long long total = 0;
    for (int i = 1; i <= top; i++) {
        int count = 0;
        int d = 1;
        for (; d * d < i; d++)
            if (i % d == 0) count += 2;
        if (d * d == i) count++;
        total += count;
        prefix[i] = total;
    }
    for (int n : queries) printf("%lld\n", prefix[n]);
}
