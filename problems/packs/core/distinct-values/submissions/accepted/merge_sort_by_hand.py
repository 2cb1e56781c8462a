# Hand-written recursive merge sort in pure Python, then count value changes: O(n log n).
import sys


def merge_sort(a):
    if len(a) <= 1:
        return a
    mid = len(a) // 2
    left = merge_sort(a[:mid])
    right = merge_sort(a[mid:])
    merged = []
    i = j = 0
    nl, nr = len(left), len(right)
    while i < nl and j < nr:
        if left[i] <= right[j]:
            merged.append(left[i])
            i += 1
        else:
            merged.append(right[j])
            j += 1
    merged.extend(left[i:])
    merged.extend(right[j:])
    return merged


def main():
    data = sys.stdin.read().split()
    n = int(data[0])
    a = merge_sort([int(x) for x in data[1:n + 1]])
    distinct = 1
    for i in range(1, n):
        if a[i] != a[i - 1]:
            distinct += 1
    print(distinct)


main()
