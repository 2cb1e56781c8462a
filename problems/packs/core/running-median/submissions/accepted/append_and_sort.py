import sys


def main():
    data = sys.stdin.read().split()
    n = int(data[0])
    a = list(map(int, data[1:1 + n]))
    s = []
    out = []
    for x in a:
        s.append(x)
        s.sort()  # already sorted but for the last element: Timsort merges in linear time
        out.append(s[(len(s) - 1) // 2])
    print(" ".join(map(str, out)))


main()
