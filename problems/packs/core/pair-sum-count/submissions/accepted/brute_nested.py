import sys


def main():
    data = sys.stdin.read().split()
    n, t = int(data[0]), int(data[1])
    a = [int(x) for x in data[2:2 + n]]
    count = 0
    for i in range(n):
        for j in range(i + 1, n):
            if a[i] + a[j] == t:
                count += 1
    print(count)


main()
