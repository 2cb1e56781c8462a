import sys


def main():
    data = sys.stdin.read().split()
    n, t = int(data[0]), int(data[1])
    seen = {}
    count = 0
    for x in map(int, data[2:2 + n]):
        seen[x] = seen.get(x, 0) + 1  # bug: x is added before looking up its partner,
        count += seen.get(t - x, 0)  # so x pairs with itself when 2x == t
    print(count)


main()
