// Monotone deque of indices (values decreasing front to back): O(n).
#include <cstdio>
#include <deque>
#include <string>
#include <vector>
using namespace std;

int main() {
    int n, w;
    if (scanf("%d %d", &n, &w) != 2) return 0;
    vector<long long> a(n);
    for (auto &x : a) scanf("%lld", &x);
    deque<int> dq;
    string out;
    char buf[24];
    for (int i = 0; i < n; i++) {
        while (!dq.empty() && a[dq.back()] <= a[i]) dq.pop_back();
        dq.push_back(i);
        if (dq.front() <= i - w) dq.pop_front();
        if (i >= w - 1) {
            int len = snprintf(buf, sizeof buf, "%lld ", a[dq.front()]);
            out.append(buf, len);
        }
    }
    out.back() = '\n';
    fputs(out.c_str(), stdout);
}
