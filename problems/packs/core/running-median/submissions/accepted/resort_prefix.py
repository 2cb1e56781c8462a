import sys


def main():
    data = sys.stdin.read().split()
    n = int(data[0])
    a = list(map(int, data[1:1 + n]))
    out = []
    for i in range(n):
        prefix = sorted(a[:i + 1])
        out.append(prefix[i // 2])
    print(" ".join(map(str, out)))


main()
