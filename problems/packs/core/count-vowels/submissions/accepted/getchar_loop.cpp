// Reads one character at a time with getchar and counts the vowels: O(length).
#include <cstdio>

int main() {
    long long count = 0;
    int c;
    while ((c = getchar()) != EOF) {
        if (c == 'a' || c == 'e' || c == 'i' || c == 'o' || c == 'u') count++;
    }
    printf("%lld\n", count);
}
