# Running prefix sum with a dict of how often each prefix was seen; O(n), input() reading.
def main():
    n, k = map(int, input().split())
    a = list(map(int, input().split()))
    seen = {0: 1}
    s = 0
    count = 0
    for x in a:
        s += x
        count += seen.get(s - k, 0)
        seen[s] = seen.get(s, 0) + 1
    print(count)


main()
