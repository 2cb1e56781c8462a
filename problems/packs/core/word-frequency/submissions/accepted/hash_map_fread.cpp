// fread the whole input, words as string_views into an unordered_map, ties by smallest word: O(total length).
#include <cstdio>
#include <string_view>
#include <unordered_map>
#include <vector>
using namespace std;

int main() {
    vector<char> buf(1 << 16);
    size_t len = 0, got;
    while ((got = fread(buf.data() + len, 1, buf.size() - len, stdin)) > 0) {
        len += got;
        if (len == buf.size()) buf.resize(buf.size() * 2);
    }
    const char *p = buf.data(), *end = buf.data() + len;
    auto skip = [&]() { while (p < end && (*p == ' ' || *p == '\n' || *p == '\r' || *p == '\t')) p++; };
    skip();
    long long m = 0;
    while (p < end && *p >= '0' && *p <= '9') m = m * 10 + (*p++ - '0');
    unordered_map<string_view, int> counts;
    counts.reserve(2 * m + 1);
    for (long long i = 0; i < m; i++) {
        skip();
        const char *s = p;
        while (p < end && *p >= 'a' && *p <= 'z') p++;
        counts[string_view(s, p - s)]++;
    }
    string_view best;
    int best_count = 0;
    for (auto &kv : counts)
        if (kv.second > best_count || (kv.second == best_count && kv.first < best)) {
            best = kv.first;
            best_count = kv.second;
        }
    printf("%.*s %d\n", (int)best.size(), best.data(), best_count);
}
