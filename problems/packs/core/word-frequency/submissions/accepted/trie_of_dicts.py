# A trie built from nested dicts, one step per letter, then a depth-first walk in letter order:
# O(total length) but with a Python operation per character.
import sys


def main():
    data = sys.stdin.read().split()
    m = int(data[0])
    root = {}
    for word in data[1:m + 1]:
        node = root
        for ch in word:
            child = node.get(ch)
            if child is None:
                child = node[ch] = {}
            node = child
        node["#"] = node.get("#", 0) + 1  # '#' sorts before every letter
    best_word, best_count = "", 0
    stack = [(root, "")]
    while stack:
        node, prefix = stack.pop()
        # visiting in lexicographic order means a later word only wins with a strictly larger count
        count = node.get("#", 0)
        if count > best_count:
            best_word, best_count = prefix, count
        for ch in sorted(node, reverse=True):
            if ch != "#":
                stack.append((node[ch], prefix + ch))
    print(best_word, best_count)


main()
