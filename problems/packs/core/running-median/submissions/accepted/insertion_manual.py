import sys


def main():
    data = sys.stdin.read().split()
    n = int(data[0])
    a = [int(x) for x in data[1:1 + n]]
    s = []
    out = []
    for x in a:
        # insertion sort step: shift larger elements one place to the right
        s.append(x)
        j = len(s) - 1
        while j > 0 and s[j - 1] > x:
            s[j] = s[j - 1]
            j -= 1
        s[j] = x
        out.append(s[(len(s) - 1) // 2])
    print(" ".join(map(str, out)))


main()
