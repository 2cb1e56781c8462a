import sys


def main():
    data = sys.stdin.read().split()
    n, k = int(data[0]), int(data[1])
    a = list(map(int, data[2:2 + n]))
    out = []
    for i in range(n - k + 1):
        w = sorted(a[i:i + k])
        distinct = 1
        for j in range(1, k):
            if w[j] != w[j - 1]:
                distinct += 1
        out.append(distinct)
    print(" ".join(map(str, out)))


main()
