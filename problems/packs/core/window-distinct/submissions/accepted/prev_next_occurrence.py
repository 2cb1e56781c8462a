import sys


def main():
    data = sys.stdin.buffer.read().split()
    n, k = int(data[0]), int(data[1])
    a = list(map(int, data[2:2 + n]))
    # prev[j]: last index < j holding a[j] (-1 if none); nxt[j]: first index > j (n if none)
    last = {}
    prev = [0] * n
    for j, v in enumerate(a):
        prev[j] = last.get(v, -1)
        last[v] = j
    nxt = [n] * n
    for j in range(n):
        if prev[j] >= 0:
            nxt[prev[j]] = j
    # window [i, i+k): a position j counts when prev[j] < i
    cur = sum(1 for j in range(k) if prev[j] < 0)
    out = [cur]
    for i in range(n - k):
        if nxt[i] >= i + k:  # a[i] leaves and has no other copy in the window
            cur -= 1
        if prev[i + k] <= i:  # a[i+k] enters and had no copy in the window
            cur += 1
        out.append(cur)
    print(" ".join(map(str, out)))


main()
