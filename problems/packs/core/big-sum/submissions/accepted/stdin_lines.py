import sys


def main():
    lines = iter(sys.stdin)
    n = int(next(lines))
    total = 0
    for line in lines:
        total += sum(map(int, line.split()))
    print(total)


main()
