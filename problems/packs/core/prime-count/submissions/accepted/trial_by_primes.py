n = int(input())
primes = []
for k in range(2, n + 1):
    for p in primes:
        if p * p > k:
            primes.append(k)
            break
        if k % p == 0:
            break
    else:
        primes.append(k)
print(len(primes))
