import sys


def main():
    data = sys.stdin.read().split()
    n, k = int(data[0]), int(data[1])
    a = list(map(int, data[2:2 + n]))
    count = {}
    for v in a[:k]:
        count[v] = count.get(v, 0) + 1
    out = [len(count)]
    for i in range(k, n):
        v = a[i]
        count[v] = count.get(v, 0) + 1
        old = a[i - k]
        c = count[old] - 1
        if c:
            count[old] = c
        else:
            del count[old]
        out.append(len(count))
    print(" ".join(map(str, out)))


main()
