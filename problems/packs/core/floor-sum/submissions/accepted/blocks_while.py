n = int(input())
total = 0
i = 1
while i <= n:
    value = n // i
    last = n // value  # the last j with n // j == value
    total += value * (last - i + 1)
    i = last + 1
print(total)
