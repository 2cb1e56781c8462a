# Bottom-up segment tree (leaves at [n, 2n)): build O(n), each query O(log n) with a loop.
import sys


def main():
    data = sys.stdin.buffer.read().split()
    n, q = int(data[0]), int(data[1])
    tree = [0] * n + list(map(int, data[2:2 + n]))
    for i in range(n - 1, 0, -1):
        left, right = tree[2 * i], tree[2 * i + 1]
        tree[i] = left if left < right else right
    out = []
    pos = 2 + n
    for _ in range(q):
        l = int(data[pos]) - 1 + n
        r = int(data[pos + 1]) + n  # half-open [l, r)
        pos += 2
        best = tree[l]
        while l < r:
            if l & 1:
                if tree[l] < best:
                    best = tree[l]
                l += 1
            if r & 1:
                r -= 1
                if tree[r] < best:
                    best = tree[r]
            l >>= 1
            r >>= 1
        out.append(best)
    sys.stdout.write("\n".join(map(str, out)) + "\n")


main()
