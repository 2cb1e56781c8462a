# Palindromic tree (eertree): add the number of palindromic suffixes ending at each position, O(n).
import sys


def main():
    s = sys.stdin.readline().strip()
    length = [-1, 0]  # node 0: imaginary root of length -1, node 1: empty string
    link = [0, 0]
    depth = [0, 0]  # number of palindromic suffixes of the node's palindrome
    edges = [{}, {}]
    last = 1
    count = 0
    for i, c in enumerate(s):
        cur = last
        while True:
            j = i - 1 - length[cur]
            if j >= 0 and s[j] == c:
                break
            cur = link[cur]
        node = edges[cur].get(c)
        if node is None:
            node = len(length)
            length.append(length[cur] + 2)
            edges.append({})
            if length[node] == 1:
                suffix = 1
            else:
                w = link[cur]
                while True:
                    j = i - 1 - length[w]
                    if j >= 0 and s[j] == c:
                        break
                    w = link[w]
                suffix = edges[w][c]
            link.append(suffix)
            depth.append(depth[suffix] + 1)
            edges[cur][c] = node
        last = node
        count += depth[node]
    print(count)


main()
