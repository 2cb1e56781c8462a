import sys


def main():
    data = sys.stdin.read().split()
    n, k = int(data[0]), int(data[1])
    a = [int(x) for x in data[2:2 + n]]
    out = []
    for i in range(n - k + 1):
        seen = set()
        for j in range(i, i + k):
            seen.add(a[j])
        out.append(len(seen))
    print(" ".join(map(str, out)))


main()
