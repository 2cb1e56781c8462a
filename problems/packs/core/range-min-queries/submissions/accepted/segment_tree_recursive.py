# Recursive segment tree over [0, n): build O(n), each query O(log n) recursive calls.
import sys

sys.setrecursionlimit(10000)


def main():
    data = sys.stdin.read().split()
    n, q = int(data[0]), int(data[1])
    a = [int(x) for x in data[2:2 + n]]
    tree = [0] * (4 * n)

    def build(node, lo, hi):
        if lo == hi:
            tree[node] = a[lo]
            return
        mid = (lo + hi) // 2
        build(2 * node, lo, mid)
        build(2 * node + 1, mid + 1, hi)
        tree[node] = min(tree[2 * node], tree[2 * node + 1])

    def query(node, lo, hi, l, r):
        if l <= lo and hi <= r:
            return tree[node]
        mid = (lo + hi) // 2
        if r <= mid:
            return query(2 * node, lo, mid, l, r)
        if l > mid:
            return query(2 * node + 1, mid + 1, hi, l, r)
        return min(query(2 * node, lo, mid, l, r), query(2 * node + 1, mid + 1, hi, l, r))

    build(1, 0, n - 1)
    out = []
    pos = 2 + n
    for _ in range(q):
        l, r = int(data[pos]) - 1, int(data[pos + 1]) - 1
        pos += 2
        out.append(str(query(1, 0, n - 1, l, r)))
    print("\n".join(out))


main()
