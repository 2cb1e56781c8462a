import sys


def main():
    data = sys.stdin.read().split()
    n, k = int(data[0]), int(data[1])
    a = list(map(int, data[2:2 + n]))
    print(" ".join(str(len(set(a[i:i + k]))) for i in range(n - k + 1)))


main()
