"""Random test for big-sum: python3 random.py SEED SIZE (SIZE 1..100)."""

import random
import sys


def main() -> None:
    seed, size = int(sys.argv[1]), int(sys.argv[2])
    size = max(1, min(100, size))
    rng = random.Random(seed)
    top = max(1, 100 * size * size)  # SIZE=1: at most 100 numbers; SIZE=100: 10**6
    n = rng.randint(max(1, top // 2), top)
    bound = rng.choice([9, 1000, 10**6, 10**9, 10**9])
    values = []
    for _ in range(n):
        kind = rng.random()
        if kind < 0.05:
            values.append(0)
        elif kind < 0.10:
            values.append(rng.choice([-(10**9), 10**9]))
        else:
            values.append(rng.randint(-bound, bound))
    layout = rng.choice(["one_line", "one_per_line", "chunks", "chunks"])
    out = [str(n)]
    if layout == "one_line":
        out.append(" ".join(map(str, values)))
    elif layout == "one_per_line":
        out.extend(map(str, values))
    else:
        i = 0
        while i < n:
            k = rng.randint(1, 20)
            out.append(" ".join(map(str, values[i : i + k])))
            i += k
    sys.stdout.write("\n".join(out) + "\n")


if __name__ == "__main__":
    main()
