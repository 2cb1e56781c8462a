import sys


def main():
    data = sys.stdin.read().split()
    n = int(data[0])
    a = list(map(int, data[1:1 + n]))
    count = 0
    for i in range(n - 1):
        # number of later elements smaller than a[i], compared at C speed
        count += sum(map(a[i].__gt__, a[i + 1:]))
    print(count)


main()
