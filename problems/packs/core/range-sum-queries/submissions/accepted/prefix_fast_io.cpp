#include <cstdio>
#include <vector>
using namespace std;

static char buf[1 << 16];
static size_t len = 0, pos = 0;

static int readChar() {
    if (pos == len) {
        len = fread(buf, 1, sizeof buf, stdin);
        pos = 0;
        if (len == 0) return -1;
    }
    return buf[pos++];
}

static long long readInt() {
    int c = readChar();
    while (c != '-' && (c < '0' || c > '9')) c = readChar();
    bool neg = false;
    if (c == '-') { neg = true; c = readChar(); }
    long long x = 0;
    while (c >= '0' && c <= '9') { x = x * 10 + (c - '0'); c = readChar(); }
    return neg ? -x : x;
}

int main() {
    int n = (int)readInt(), q = (int)readInt();
    vector<long long> prefix(n + 1, 0);
    for (int i = 1; i <= n; i++) prefix[i] = prefix[i - 1] + readInt();
    vector<char> out;
    out.reserve((size_t)q * 16);
    char tmp[24];
    while (q--) {
        int l = (int)readInt(), r = (int)readInt();
        long long s = prefix[r] - prefix[l - 1];
        unsigned long long u = s < 0 ? 0ULL - (unsigned long long)s : (unsigned long long)s;
        int k = 0;
        do { tmp[k++] = char('0' + u % 10); u /= 10; } while (u);
        if (s < 0) out.push_back('-');
        while (k) out.push_back(tmp[--k]);
        out.push_back('\n');
    }
    fwrite(out.data(), 1, out.size(), stdout);
    return 0;
}
