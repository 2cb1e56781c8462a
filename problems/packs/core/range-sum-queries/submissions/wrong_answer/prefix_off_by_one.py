import sys

data = sys.stdin.buffer.read().split()
n, q = int(data[0]), int(data[1])
prefix = [0] * (n + 1)
for i in range(n):
    prefix[i + 1] = prefix[i] + int(data[2 + i])
out = []
for k in range(q):
    l = int(data[2 + n + 2 * k])
    r = int(data[3 + n + 2 * k])
    out.append(prefix[r] - prefix[l])  # should be prefix[l - 1]
print("\n".join(map(str, out)))
