# Checks only four of the five vowels.
text = input()
count = 0
for ch in text:
    if ch in "aeio":
        count += 1
print(count)
