// Reads the text in blocks with fread and looks each byte up in a table of vowels.
#include <cstdio>

int main() {
    static char buf[1 << 16];
    bool vowel[256] = {};
    for (const char *v = "aeiou"; *v; v++) vowel[(unsigned char)*v] = true;
    long long count = 0;
    size_t got;
    while ((got = fread(buf, 1, sizeof buf, stdin)) > 0)
        for (size_t i = 0; i < got; i++) count += vowel[(unsigned char)buf[i]];
    printf("%lld\n", count);
}
