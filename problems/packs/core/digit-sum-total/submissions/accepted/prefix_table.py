# One table ds[i] = ds[i // 10] + i % 10 up to the largest n, prefix-summed, then O(1) per query; O(max n + q).
import sys
from itertools import accumulate


def main():
    data = sys.stdin.buffer.read().split()
    q = int(data[0])
    ns = list(map(int, data[1:1 + q]))
    top = max(ns)
    ds = [0] * (top + 1)
    for i in range(1, top + 1):
        ds[i] = ds[i // 10] + i % 10
    prefix = list(accumulate(ds))
    print("\n".join(str(prefix[n]) for n in ns))


main()
