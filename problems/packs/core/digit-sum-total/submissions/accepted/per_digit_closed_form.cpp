// Closed form per decimal position; O(q * log n).
#include <iostream>
using namespace std;

int main() {
    int q;
    if (!(cin >> q)) return 0;
    while (q--) {
        long long n;
        cin >> n;
        long long total = 0;
        for (long long p = 1; p <= n; p *= 10) {
            long long high = n / (10 * p), cur = (n / p) % 10, low = n % p;
            total += high * 45 * p + cur * (cur - 1) / 2 * p + cur * (low + 1);
        }
        cout << total << "\n";
    }
}
