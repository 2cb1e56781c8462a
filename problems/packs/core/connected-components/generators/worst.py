"""Adversarial test for connected-components: python3 -P worst.py SEED SIZE (SIZE 1..100).

n nodes and m = 2n edges in three parts (node names randomly permuted):
- a star on n/2 nodes whose edges all name the centre first, in a fixed leaf order, then
  repeated star edges: union-find without path compression and without ranks hangs each
  root under the next leaf, so the centre sinks to the bottom of a chain of length n/2 and
  every later edge through it walks the whole chain;
- a path on most of the other nodes, its edges shuffled and randomly oriented: labels that
  flow along edges until nothing changes need a number of rounds proportional to its length;
- a few isolated nodes.
Path edges are spread among the star edges, keeping the star edges in order."""
import random
import sys

N_MAX = 6000


def main():
    seed, size = int(sys.argv[1]), int(sys.argv[2])
    size = max(1, min(100, size))
    rng = random.Random(seed)
    n = max(2, round(N_MAX * (size / 100) ** 1.5))
    m = 2 * n
    names = list(range(1, n + 1))
    rng.shuffle(names)
    star_size = max(1, n // 2)
    isolated = max(0, min(n - star_size - 1, n // 100))
    path = names[star_size:n - isolated]
    centre, leaves = names[0], names[1:star_size]
    path_edges = []
    for a, b in zip(path, path[1:]):
        path_edges.append((a, b) if rng.random() < 0.5 else (b, a))
    rng.shuffle(path_edges)
    star_edges = [(centre, x) for x in leaves]
    while leaves and len(star_edges) + len(path_edges) < m:
        star_edges.append((centre, leaves[rng.randrange(len(leaves))]))
    m = len(star_edges) + len(path_edges)
    # merge: keep each list's order, interleave at random
    edges = []
    i = j = 0
    while i < len(star_edges) or j < len(path_edges):
        left_star, left_path = len(star_edges) - i, len(path_edges) - j
        if rng.randrange(left_star + left_path) < left_star:
            edges.append(star_edges[i])
            i += 1
        else:
            edges.append(path_edges[j])
            j += 1
    out = [f"{n} {m}"]
    out.extend(f"{u} {v}" for u, v in edges)
    sys.stdout.write("\n".join(out) + "\n")


main()
