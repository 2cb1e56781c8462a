# Sort 2n open/close events and add the distance between consecutive events while any stretch is open: O(n log n).
import sys


def main():
    data = sys.stdin.read().split()
    n = int(data[0])
    events = []
    for i in range(n):
        events.append((int(data[1 + 2 * i]), 1))
        events.append((int(data[2 + 2 * i]), -1))
    events.sort()
    total = 0
    depth = 0
    prev = events[0][0]
    for x, delta in events:
        if depth > 0:
            total += x - prev
        prev = x
        depth += delta
    print(total)


main()
