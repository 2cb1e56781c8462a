import sys


def main():
    data = sys.stdin.buffer.read().split()
    n = int(data[0])
    a = list(map(int, data[1:n + 1]))
    rank = {v: i + 1 for i, v in enumerate(sorted(set(a)))}
    m = len(rank)
    fen = [0] * (m + 1)
    best = 0
    for x in a:
        i = rank[x] - 1  # best chain ending strictly below x
        cur = 0
        while i > 0:
            if fen[i] > cur:
                cur = fen[i]
            i -= i & -i
        cur += 1
        if cur > best:
            best = cur
        i = rank[x]
        while i <= m:
            if fen[i] < cur:
                fen[i] = cur
            i += i & -i
    print(best)


main()
