import sys


def main():
    n = int(sys.stdin.readline())
    if n < 2:
        print(0)
        return
    # index i stands for the odd number 2i + 1
    size = (n + 1) // 2
    sieve = bytearray(b"\x01") * size
    sieve[0] = 0  # 1 is not prime
    i = 1
    while True:
        p = 2 * i + 1
        start = p * p // 2
        if start >= size:
            break
        if sieve[i]:
            sieve[start::p] = bytes((size - 1 - start) // p + 1)
        i += 1
    print(sieve.count(1) + 1)  # + 1 for the prime 2


main()
