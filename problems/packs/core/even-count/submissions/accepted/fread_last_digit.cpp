// Whole input with fread; a number is even when the digit before its end is even.
#include <cstdio>
#include <vector>

int main() {
    std::vector<char> buf(1 << 16);
    size_t len = 0, got;
    while ((got = fread(buf.data() + len, 1, buf.size() - len, stdin)) > 0) {
        len += got;
        if (len == buf.size()) buf.resize(buf.size() * 2);
    }
    size_t i = 0;
    while (i < len && buf[i] != '\n') i++;  // skip n
    long long count = 0;
    for (; i < len; i++) {
        bool digit = buf[i] >= '0' && buf[i] <= '9';
        bool last = digit && (i + 1 == len || buf[i + 1] < '0' || buf[i + 1] > '9');
        if (last && (buf[i] - '0') % 2 == 0) count++;
    }
    printf("%lld\n", count);
}
