# Bit-parallel LCS (Allison-Dix / Hyyro) on Python big integers: O(|a| * |b| / w) word operations.
import sys


def main():
    a, b = sys.stdin.buffer.read().split()
    if len(a) < len(b):
        a, b = b, a  # the bit vector follows the shorter string
    m = len(b)
    full = (1 << m) - 1
    masks = {}
    for j, ch in enumerate(b):
        masks[ch] = masks.get(ch, 0) | (1 << j)
    v = full  # ones mark columns where the LCS row has not yet grown
    get = masks.get
    for ch in a:
        u = v & get(ch, 0)
        v = ((v + u) | (v - u)) & full
    print(m - bin(v).count("1"))


main()
