# Prefix-sum dict that forgets the empty prefix (sum 0), so subarrays starting at 1 are missed.
import sys


def main():
    data = sys.stdin.buffer.read().split()
    n, k = int(data[0]), int(data[1])
    seen = {}
    s = 0
    count = 0
    for x in map(int, data[2:2 + n]):
        s += x
        count += seen.get(s - k, 0)
        seen[s] = seen.get(s, 0) + 1
    print(count)


main()
