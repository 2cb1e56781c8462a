import sys


def main():
    data = sys.stdin.buffer.read().split()
    R, C = int(data[0]), int(data[1])
    W = C + 2
    # one padded row of walls above and below, one wall column on each side
    free = bytearray(W * (R + 2))
    for r in range(R):
        row = data[2 + r]
        base = (r + 1) * W + 1
        free[base:base + C] = row.translate(bytes.maketrans(b".#", b"\x01\x00"))
    start, goal = W + 1, R * W + C
    if start == goal:
        print(0)
        return
    free[start] = 0
    frontier = [start]
    steps = 0
    while frontier:
        steps += 1
        nxt = []
        push = nxt.append
        for p in frontier:
            for q in (p - 1, p + 1, p - W, p + W):
                if free[q]:
                    if q == goal:
                        print(steps)
                        return
                    free[q] = 0
                    push(q)
        frontier = nxt
    print(-1)


main()
