import sys


def main():
    data = sys.stdin.buffer.read().split()
    n = int(data[0])
    a = list(map(int, data[1:1 + n]))
    values = sorted(set(a))
    rank = {v: i for i, v in enumerate(values, 1)}
    m = len(values)
    tree = [0] * (m + 1)
    top = 1
    while top * 2 <= m:
        top *= 2
    out = []
    for count, x in enumerate(a, 1):
        i = rank[x]
        while i <= m:
            tree[i] += 1
            i += i & -i
        # find the smallest rank whose prefix count reaches k (binary lifting)
        k = (count + 1) // 2
        pos = 0
        step = top
        while step:
            nxt = pos + step
            if nxt <= m and tree[nxt] < k:
                pos = nxt
                k -= tree[nxt]
            step >>= 1
        out.append(values[pos])
    print(" ".join(map(str, out)))


main()
