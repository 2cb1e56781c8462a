import sys


def main():
    data = sys.stdin.buffer.read().split()
    n = int(data[0])
    a = list(map(int, data[1:1 + n]))
    rank = {v: r for r, v in enumerate(sorted(set(a)), 1)}
    m = len(rank)
    tree = [0] * (m + 1)
    count = 0
    for i, v in enumerate(a):
        r = rank[v]
        # how many earlier values are <= v
        s = 0
        j = r
        while j > 0:
            s += tree[j]
            j &= j - 1
        count += i - s
        while r <= m:
            tree[r] += 1
            r += r & -r
    print(count)


main()
