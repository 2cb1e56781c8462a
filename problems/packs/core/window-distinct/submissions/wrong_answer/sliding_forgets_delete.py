import sys


def main():
    data = sys.stdin.read().split()
    n, k = int(data[0]), int(data[1])
    a = list(map(int, data[2:2 + n]))
    count = {}
    for v in a[:k]:
        count[v] = count.get(v, 0) + 1
    out = [len(count)]
    for i in range(k, n):
        count[a[i]] = count.get(a[i], 0) + 1
        count[a[i - k]] -= 1  # bug: a value whose count drops to 0 is still a key
        out.append(len(count))
    print(" ".join(map(str, out)))


main()
