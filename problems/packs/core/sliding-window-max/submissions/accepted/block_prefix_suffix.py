# Cut the array into blocks of length w; a window is a suffix of one block plus a prefix of the
# next, so its maximum is max(suffix_max[i], prefix_max[i + w - 1]). Running maxima come from
# itertools.accumulate, so all loops run at C speed: O(n).
import sys
from itertools import accumulate


def main():
    data = sys.stdin.buffer.read().split()
    n, w = int(data[0]), int(data[1])
    a = list(map(int, data[2:2 + n]))
    prefix = []
    suffix = []
    for s in range(0, n, w):
        block = a[s:s + w]
        prefix += accumulate(block, max)
        suffix += list(accumulate(reversed(block), max))[::-1]
    out = map(max, suffix[:n - w + 1], prefix[w - 1:])
    sys.stdout.write(" ".join(map(str, out)) + "\n")


main()
