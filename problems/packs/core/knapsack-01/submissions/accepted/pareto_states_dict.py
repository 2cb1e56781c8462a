# Dict of reachable weight -> best value, merged item by item, dropping dominated states: O(n * states).
import sys


def main():
    data = sys.stdin.read().split()
    n, capacity = int(data[0]), int(data[1])
    states = {0: 0}
    for i in range(n):
        w, v = int(data[2 + 2 * i]), int(data[3 + 2 * i])
        grown = dict(states)
        for sw, sv in states.items():
            nw = sw + w
            if nw <= capacity:
                nv = sv + v
                if grown.get(nw, -1) < nv:
                    grown[nw] = nv
        # keep only states that beat every lighter state
        states = {}
        best = -1
        for sw in sorted(grown):
            sv = grown[sw]
            if sv > best:
                states[sw] = sv
                best = sv
    print(max(states.values()))


main()
