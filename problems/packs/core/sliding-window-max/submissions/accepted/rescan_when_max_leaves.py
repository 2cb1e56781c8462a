# Keeps the current maximum and its position, rescanning the window only when that maximum
# slides out: O(n) on random data, O(n * w) when the maximum keeps leaving (falling values).
import sys


def main():
    data = sys.stdin.buffer.read().split()
    n, w = int(data[0]), int(data[1])
    a = list(map(int, data[2:2 + n]))
    best_pos = -1
    out = []
    for i in range(n - w + 1):
        if best_pos < i:  # the maximum left the window: scan the whole window again
            best_pos = i
            for j in range(i + 1, i + w):
                if a[j] >= a[best_pos]:
                    best_pos = j
        elif a[i + w - 1] >= a[best_pos]:
            best_pos = i + w - 1
        out.append(a[best_pos])
    print(" ".join(map(str, out)))


main()
