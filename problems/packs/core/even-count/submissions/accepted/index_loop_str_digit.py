# Converts each number to int, back to a string, and looks at its last digit by index.
n = int(input())
parts = input().split()
count = 0
for i in range(n):
    value = int(parts[i])
    if str(value)[-1] in ["0", "2", "4", "6", "8"]:
        count = count + 1
print(count)
