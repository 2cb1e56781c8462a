#include <iostream>
using namespace std;

int main() {
    long long n;
    cin >> n;
    long long total = 0;
    for (long long i = 1; i <= n;) {
        long long v = n / i;
        long long last = n / v;
        total += v * (last - i + 1);
        i = last + 1;
    }
    cout << total << "\n";
    return 0;
}
