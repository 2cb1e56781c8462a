// Union-find with union by size and path halving: O((n + m) alpha(n)).
#include <cstdio>
#include <utility>
#include <vector>
using namespace std;

int main() {
    int n, m;
    if (scanf("%d %d", &n, &m) != 2) return 0;
    vector<int> parent(n + 1), size(n + 1, 1);
    for (int i = 0; i <= n; i++) parent[i] = i;
    auto find = [&](int x) {
        while (parent[x] != x) x = parent[x] = parent[parent[x]];
        return x;
    };
    int components = n;
    for (int i = 0; i < m; i++) {
        int u, v;
        scanf("%d %d", &u, &v);
        u = find(u), v = find(v);
        if (u == v) continue;
        if (size[u] < size[v]) swap(u, v);
        parent[v] = u;
        size[u] += size[v];
        components--;
    }
    printf("%d\n", components);
}
