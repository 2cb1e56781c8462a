import sys

input = sys.stdin.readline


def main():
    n, q = map(int, input().split())
    a = list(map(int, input().split()))
    tree = [0] * (n + 1)
    for i in range(1, n + 1):
        tree[i] += a[i - 1]
        j = i + (i & -i)
        if j <= n:
            tree[j] += tree[i]

    def query(i):
        s = 0
        while i > 0:
            s += tree[i]
            i -= i & -i
        return s

    out = []
    for _ in range(q):
        l, r = map(int, input().split())
        out.append(query(r) - query(l - 1))
    sys.stdout.write("\n".join(map(str, out)) + "\n")


main()
