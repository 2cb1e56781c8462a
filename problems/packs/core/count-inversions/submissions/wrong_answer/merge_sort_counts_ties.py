import sys

sys.setrecursionlimit(10000)


def sort_count(a):
    if len(a) <= 1:
        return a, 0
    mid = len(a) // 2
    left, inv_left = sort_count(a[:mid])
    right, inv_right = sort_count(a[mid:])
    merged = []
    inv = inv_left + inv_right
    i = j = 0
    while i < len(left) and j < len(right):
        if left[i] < right[j]:  # bug: equal values are counted as inversions
            merged.append(left[i])
            i += 1
        else:
            merged.append(right[j])
            j += 1
            inv += len(left) - i
    merged += left[i:] + right[j:]
    return merged, inv


def main():
    data = sys.stdin.read().split()
    n = int(data[0])
    a = list(map(int, data[1:1 + n]))
    print(sort_count(a)[1])


main()
