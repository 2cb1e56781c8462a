"""Random test for connected-components: python3 -P random.py SEED SIZE (SIZE 1..100).

n nodes (6000 at SIZE=100) split into a random number of hidden groups; m edges (up to 2n)
join random nodes of the same group, so the answer ranges from 1 to n. Some tests add
self-loops and repeated edges."""
import random
import sys

N_MAX = 6000


def main():
    seed, size = int(sys.argv[1]), int(sys.argv[2])
    size = max(1, min(100, size))
    rng = random.Random(seed)
    n = max(1, round(N_MAX * (size / 100) ** 1.5))
    m = rng.randint(0, 2 * n) if size < 100 else 2 * n
    groups = rng.choice([1, 2, max(1, n // 50), max(1, n // 5), n])
    group_of = [rng.randrange(groups) for _ in range(n + 1)]
    members = {}
    for v in range(1, n + 1):
        members.setdefault(group_of[v], []).append(v)
    messy = rng.random() < 0.3
    edges = []
    for _ in range(m):
        u = rng.randint(1, n)
        if messy and edges and rng.random() < 0.1:
            edges.append(edges[rng.randrange(len(edges))][::-1])  # a repeated edge
            continue
        if messy and rng.random() < 0.05:
            v = u  # a self-loop
        else:
            v = rng.choice(members[group_of[u]])
        edges.append((u, v))
    out = [f"{n} {m}"]
    out.extend(f"{u} {v}" for u, v in edges)
    sys.stdout.write("\n".join(out) + "\n")


main()
