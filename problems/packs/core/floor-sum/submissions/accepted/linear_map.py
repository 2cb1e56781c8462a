n = int(input())
print(sum(map(n.__floordiv__, range(1, n + 1))))
