// Monotone stack from the right with fast I/O, O(n).
#include <cstdio>
#include <vector>
using namespace std;

int main() {
    int n;
    if (scanf("%d", &n) != 1) return 0;
    vector<long long> a(n), res(n, -1), st;
    st.reserve(n);
    for (auto &x : a) scanf("%lld", &x);
    for (int i = n - 1; i >= 0; i--) {
        while (!st.empty() && st.back() <= a[i]) st.pop_back();
        if (!st.empty()) res[i] = st.back();
        st.push_back(a[i]);
    }
    for (int i = 0; i < n; i++) printf("%lld%c", res[i], i + 1 < n ? ' ' : '\n');
}
