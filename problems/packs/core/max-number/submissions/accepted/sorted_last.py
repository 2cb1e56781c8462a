# Sort every number and print the last one: O(n log n) for an O(n) question.
n = int(input())
numbers = [int(x) for x in input().split()]
numbers = sorted(numbers)
print(numbers[-1])
