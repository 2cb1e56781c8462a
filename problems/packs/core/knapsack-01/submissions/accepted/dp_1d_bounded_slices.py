# 1D DP on list slices, updating only the capacities that can still matter (bounded above and below): O(n*W).
import sys


def main():
    data = sys.stdin.buffer.read().split()
    n, capacity = int(data[0]), int(data[1])
    items = [(int(data[2 + 2 * i]), int(data[3 + 2 * i])) for i in range(n)]
    items = [(w, v) for w, v in items if w <= capacity]
    remaining = sum(w for w, _ in items)
    final = min(capacity, remaining)  # the answer is read at best[final]
    # best[c] = best value of weight at most c, kept exact only for c <= seen (the total weight so
    # far); above that the true value is best[seen], written in lazily when `seen` grows
    best = [0] * (capacity + 1)
    seen = 0
    for w, v in items:
        hi = min(capacity, seen + w)
        if hi > seen:
            best[seen + 1:hi + 1] = [best[seen]] * (hi - seen)
        seen = hi
        remaining -= w
        # below `lo` no later item (nor the answer) reads best[] again, so it may go stale
        lo = max(w, final - remaining)
        if lo > hi:
            continue
        old = best[lo - w:hi - w + 1]
        best[lo:hi + 1] = [a if a > b + v else b + v for a, b in zip(best[lo:hi + 1], old)]
    print(best[seen])


main()
