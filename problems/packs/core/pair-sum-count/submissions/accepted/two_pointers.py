import sys


def main():
    data = sys.stdin.read().split()
    n, t = int(data[0]), int(data[1])
    a = sorted(map(int, data[2:2 + n]))
    i, j = 0, n - 1
    count = 0
    while i < j:
        s = a[i] + a[j]
        if s < t:
            i += 1
        elif s > t:
            j -= 1
        elif a[i] == a[j]:
            # everything from i to j is the same value: choose any two of them
            m = j - i + 1
            count += m * (m - 1) // 2
            break
        else:
            left = i
            while a[i] == a[left]:
                i += 1
            right = j
            while a[j] == a[right]:
                j -= 1
            count += (i - left) * (right - j)
    print(count)


main()
