#include <bits/stdc++.h>
using namespace std;

int main() {
    long long n;
    cin >> n;
    long long count = 0;
    for (long long k = 2; k <= n; k++) {
        bool prime = true;
        for (long long d = 2; d * d <= k; d++)
            if (k % d == 0) {
                prime = false;
                break;
            }
        if (prime) count++;
    }
    cout << count << "\n";
}
