# input() for every number, list.sort(), then one print() per number: O(n log n) with slow line I/O.
n = int(input())
values = []
for _ in range(n):
    values.append(int(input()))
values.sort()
for v in values[:-1]:
    print(v, end=" ")
print(values[-1])
