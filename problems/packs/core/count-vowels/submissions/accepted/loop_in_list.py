# The plain loop: one character at a time, checked against a list of vowels.
text = input()
vowels = ["a", "e", "i", "o", "u"]
count = 0
for ch in text:
    if ch in vowels:
        count += 1
print(count)
