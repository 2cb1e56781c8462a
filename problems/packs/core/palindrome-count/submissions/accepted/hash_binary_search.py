# Forward and backward prefix hashes mod 2^61-1, binary search the radius at each centre, O(n log n).
import sys

MOD = (1 << 61) - 1
BASE = 131542391


def main():
    s = sys.stdin.buffer.readline().strip()
    n = len(s)
    r = s[::-1]
    hf = [0] * (n + 1)
    hb = [0] * (n + 1)
    pw = [1] * (n + 1)
    for i in range(n):
        hf[i + 1] = (hf[i] * BASE + s[i]) % MOD
        hb[i + 1] = (hb[i] * BASE + r[i]) % MOD
        pw[i + 1] = pw[i] * BASE % MOD

    def is_pal(lo, hi):  # s[lo:hi] equals its reverse r[n-hi:n-lo]
        length = hi - lo
        a = (hf[hi] - hf[lo] * pw[length]) % MOD
        b = (hb[n - lo] - hb[n - hi] * pw[length]) % MOD
        return a == b

    count = 0
    for i in range(n):
        # odd: s[i-k : i+k+1]
        lo, hi = 0, min(i, n - 1 - i)
        while lo < hi:
            mid = (lo + hi + 1) // 2
            if is_pal(i - mid, i + mid + 1):
                lo = mid
            else:
                hi = mid - 1
        count += lo + 1
        # even: s[i-k : i+k], centre between i-1 and i
        lo, hi = 0, min(i, n - i)
        while lo < hi:
            mid = (lo + hi + 1) // 2
            if is_pal(i - mid, i + mid):
                lo = mid
            else:
                hi = mid - 1
        count += lo
    print(count)


main()
