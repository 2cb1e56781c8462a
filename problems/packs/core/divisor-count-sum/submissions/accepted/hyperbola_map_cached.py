# Dirichlet hyperbola with map() at C speed, each distinct query computed once, one buffered write; O(q sqrt N).
import sys
from math import isqrt


def main():
    data = sys.stdin.buffer.read().split()
    q = int(data[0])
    cache = {}
    out = []
    for token in data[1:1 + q]:
        n = int(token)
        ans = cache.get(n)
        if ans is None:
            k = isqrt(n)
            ans = 2 * sum(map(n.__floordiv__, range(1, k + 1))) - k * k
            cache[n] = ans
        out.append(ans)
    sys.stdout.write("\n".join(map(str, out)) + "\n")


main()
