import sys
from collections import Counter


def main():
    data = sys.stdin.read().split()
    n, k = int(data[0]), int(data[1])
    a = list(map(int, data[2:2 + n]))
    window = Counter(a[:k])
    out = [len(window)]
    for i in range(k, n):
        window[a[i]] += 1
        window[a[i - k]] -= 1
        if window[a[i - k]] == 0:
            del window[a[i - k]]
        out.append(len(window))
    print(*out)


main()
