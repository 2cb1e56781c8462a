# One pass of bubble sort carries the largest number to the end of the list.
n = int(input())
numbers = list(map(int, input().split()))
for i in range(n - 1):
    if numbers[i] > numbers[i + 1]:
        numbers[i], numbers[i + 1] = numbers[i + 1], numbers[i]
print(numbers[n - 1])
