# Scan every range element by element, reading each query with input(); O(n * q).
def main():
    n, q = map(int, input().split())
    a = list(map(int, input().split()))
    for _ in range(q):
        l, r = map(int, input().split())
        best = a[l - 1]
        for i in range(l, r):
            if a[i] < best:
                best = a[i]
        print(best)


main()
