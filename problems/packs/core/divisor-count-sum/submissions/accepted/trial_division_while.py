# Count the divisors of every i up to the largest query by trial division up to sqrt(i), then prefix sums: O(N sqrt N).
def main():
    q = int(input())
    queries = [int(input()) for _ in range(q)]
    top = max(queries)
    prefix = [0] * (top + 1)
    total = 0
    for i in range(1, top + 1):
        count = 0
        d = 1
        while d * d < i:
            if i % d == 0:
                count += 2  # d and i // d
            d += 1
        if d * d == i:
            count += 1
        total += count
        prefix[i] = total
    for n in queries:
        print(prefix[n])


main()
