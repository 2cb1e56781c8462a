import sys


def main():
    data = sys.stdin.read().split()
    n, t = int(data[0]), int(data[1])
    a = list(map(int, data[2:2 + n]))
    count = 0
    for i in range(n - 1):
        count += a[i + 1:].count(t - a[i])
    print(count)


main()
