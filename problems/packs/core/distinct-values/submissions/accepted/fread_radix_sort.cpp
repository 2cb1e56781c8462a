// Whole input with fread, hand-written parser, LSD radix sort on 32-bit keys, count changes: O(n).
#include <cstdio>
#include <cstdint>
#include <cstring>
#include <vector>
using namespace std;

int main() {
    vector<char> buf;
    {
        size_t cap = 1 << 16, len = 0;
        buf.resize(cap);
        size_t got;
        while ((got = fread(buf.data() + len, 1, cap - len, stdin)) > 0) {
            len += got;
            if (len == cap) { cap *= 2; buf.resize(cap); }
        }
        buf.resize(len);
        buf.push_back('\0');
    }
    const char *p = buf.data();
    auto next = [&]() -> uint32_t {
        while (*p && (*p < '0' || *p > '9')) p++;
        uint32_t v = 0;
        while (*p >= '0' && *p <= '9') v = v * 10 + (uint32_t)(*p++ - '0');
        return v;
    };
    int n = (int)next();
    vector<uint32_t> a(n), b(n);
    for (int i = 0; i < n; i++) a[i] = next();
    for (int shift = 0; shift < 32; shift += 16) {
        vector<int> cnt(65537, 0);
        for (int i = 0; i < n; i++) cnt[((a[i] >> shift) & 0xFFFF) + 1]++;
        for (int d = 0; d < 65536; d++) cnt[d + 1] += cnt[d];
        for (int i = 0; i < n; i++) b[cnt[(a[i] >> shift) & 0xFFFF]++] = a[i];
        a.swap(b);
    }
    int distinct = n > 0 ? 1 : 0;
    for (int i = 1; i < n; i++)
        if (a[i] != a[i - 1]) distinct++;
    printf("%d\n", distinct);
}
