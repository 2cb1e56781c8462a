import sys


def main():
    t, p = sys.stdin.buffer.read().split()
    find = t.find
    count = 0
    i = find(p)
    while i >= 0:
        count += 1
        i = find(p, i + 1)
    sys.stdout.write(f"{count}\n")


main()
