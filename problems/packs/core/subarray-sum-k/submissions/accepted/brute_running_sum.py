# Brute force: for every start, extend the end and keep a running sum; O(n^2).
def main():
    n, k = map(int, input().split())
    a = list(map(int, input().split()))
    count = 0
    for i in range(n):
        s = 0
        for j in range(i, n):
            s += a[j]
            if s == k:
                count += 1
    print(count)


main()
