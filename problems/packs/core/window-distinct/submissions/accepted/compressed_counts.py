import sys


def main():
    data = sys.stdin.buffer.read().split()
    n, k = int(data[0]), int(data[1])
    # compress values to 0..m-1 so the window counter can be a plain list
    ids = {}
    a = [ids.setdefault(v, len(ids)) for v in map(int, data[2:2 + n])]
    cnt = [0] * len(ids)
    distinct = 0
    for v in a[:k]:
        if cnt[v] == 0:
            distinct += 1
        cnt[v] += 1
    out = [distinct]
    append = out.append
    for new, old in zip(a[k:], a):
        if cnt[new] == 0:
            distinct += 1
        cnt[new] += 1
        cnt[old] -= 1
        if cnt[old] == 0:
            distinct -= 1
        append(distinct)
    sys.stdout.write(" ".join(map(str, out)) + "\n")


main()
