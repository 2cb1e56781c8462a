n = int(input())
a = list(map(int, input().split()))
tails = []  # tails[k] = smallest possible last element of an increasing run of length k+1
for x in a:
    lo, hi = 0, len(tails)
    while lo < hi:
        mid = (lo + hi) // 2
        if tails[mid] < x:
            lo = mid + 1
        else:
            hi = mid
    if lo == len(tails):
        tails.append(x)
    else:
        tails[lo] = x
print(len(tails))
