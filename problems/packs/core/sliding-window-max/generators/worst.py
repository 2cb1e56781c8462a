"""Adversarial test for sliding-window-max: python3 -P worst.py SEED SIZE (SIZE 1..100).

The longest array (n = 200000 at SIZE=100) with the longest window (w = 500). The values
form falling runs of length 3w, each run starting a little higher than the one before, with
small random noise. Inside a window the maximum is almost always its oldest element, so it
leaves at every step (a "remember the maximum" scan must rescan the whole window each time),
and every run buries the older, smaller values in a lazy-deletion heap, which keeps growing.
The output has n - w + 1 numbers, most of them 10 characters long."""
import random
import sys

N_MAX = 200_000
W_MAX = 500


def main():
    seed, size = int(sys.argv[1]), int(sys.argv[2])
    size = max(1, min(100, size))
    rng = random.Random(seed)
    n = max(1, round(N_MAX * (size / 100) ** 2))
    w = max(1, min(n, round(W_MAX * size / 100)))
    run = 3 * w
    runs = (n + run - 1) // run
    lo, hi = -(10**9), 10**9
    # run r falls from top_r down by about `drop`; tops rise from about -4e8 to +1e9
    drop = 6 * 10**8
    values = []
    for r in range(runs):
        top = -4 * 10**8 + (14 * 10**8 * (r + 1)) // runs
        step = drop // run
        for t in range(run):
            v = top - t * step - rng.randrange(max(1, step))
            values.append(max(lo, min(hi, v)))
    values = values[:n]
    print(n, w)
    print(" ".join(map(str, values)))


main()
