# Keep an unsorted list of disjoint merged pieces; each new stretch absorbs every piece it meets: O(n * pieces).
import sys


def main():
    data = sys.stdin.read().split()
    n = int(data[0])
    pieces = []
    for i in range(n):
        l, r = int(data[1 + 2 * i]), int(data[2 + 2 * i])
        kept = []
        for a, b in pieces:
            if b < l or a > r:
                kept.append((a, b))
            else:
                if a < l:
                    l = a
                if b > r:
                    r = b
        kept.append((l, r))
        pieces = kept
    print(sum(b - a for a, b in pieces))


main()
