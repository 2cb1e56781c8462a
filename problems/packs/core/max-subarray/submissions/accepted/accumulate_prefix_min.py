# Prefix sums and their running minimum with itertools.accumulate, then one max(map(sub)): O(n), all in C.
import sys
from itertools import accumulate
from operator import sub


def main():
    data = sys.stdin.buffer.read().split()
    n = int(data[0])
    prefix = list(accumulate(map(int, data[1:n + 1]), initial=0))
    lowest = accumulate(prefix, min)  # lowest[k] = min(prefix[0..k])
    print(max(map(sub, prefix[1:], lowest)))


main()
