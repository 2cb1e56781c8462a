# Palindromic tree, but it prints the number of its nodes: distinct palindromes instead of positions.
import sys


def main():
    s = sys.stdin.readline().strip()
    length = [-1, 0]
    link = [0, 0]
    edges = [{}, {}]
    last = 1
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
            edges[cur][c] = node
        last = node
    print(len(length) - 2)  # bug: each palindrome should count once per position


main()
