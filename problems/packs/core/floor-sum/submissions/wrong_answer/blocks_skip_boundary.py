n = int(input())
total = 0
i = 1
while i <= n:
    value = n // i
    last = n // value
    total += value * (last - i)  # off by one: the block has last - i + 1 terms
    i = last + 1
print(total + 1)
