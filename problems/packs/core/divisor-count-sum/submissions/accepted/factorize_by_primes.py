# Factorize every i up to the largest query by trial division with primes, d(i) = prod(e + 1), then prefix sums.
import sys


def main():
    data = sys.stdin.read().split()
    q = int(data[0])
    queries = [int(x) for x in data[1:1 + q]]
    top = max(queries)
    primes = []
    prefix = [0] * (top + 1)
    total = 0
    for i in range(1, top + 1):
        m = i
        count = 1
        for p in primes:
            if p * p > m:
                break
            if m % p == 0:
                e = 0
                while m % p == 0:
                    m //= p
                    e += 1
                count *= e + 1
        if m > 1:
            count *= 2
            if m == i:
                primes.append(i)
        total += count
        prefix[i] = total
    sys.stdout.write("\n".join(str(prefix[n]) for n in queries) + "\n")


main()
