// Whole input with fread and a hand-written parser: O(n) with the least I/O overhead.
#include <cstdio>
#include <vector>

int main() {
    std::vector<char> buf(1 << 16);
    size_t len = 0, got;
    while ((got = fread(buf.data() + len, 1, buf.size() - len, stdin)) > 0) {
        len += got;
        if (len == buf.size()) buf.resize(buf.size() * 2);
    }
    buf.resize(len);
    buf.push_back('\0');
    const char *p = buf.data();
    auto next = [&]() -> long long {
        while (*p && *p != '-' && (*p < '0' || *p > '9')) p++;
        bool negative = false;
        if (*p == '-') { negative = true; p++; }
        long long v = 0;
        while (*p >= '0' && *p <= '9') v = v * 10 + (*p++ - '0');
        return negative ? -v : v;
    };
    long long n = next();
    long long best = next();
    for (long long i = 1; i < n; i++) {
        long long x = next();
        if (x > best) best = x;
    }
    printf("%lld\n", best);
}
