import sys


def main():
    data = sys.stdin.read().split()
    n, t = int(data[0]), int(data[1])
    a = sorted(map(int, data[2:2 + n]))
    i, j = 0, n - 1
    count = 0
    while i < j:
        s = a[i] + a[j]
        if s < t:
            i += 1
        elif s > t:
            j -= 1
        else:
            count += 1  # bug: repeated values give more pairs than one
            i += 1
            j -= 1
    print(count)


main()
