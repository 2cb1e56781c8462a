# Indexes every position and compares the character with each vowel in turn.
text = input()
count = 0
for i in range(len(text)):
    ch = text[i]
    if ch == "a" or ch == "e" or ch == "i" or ch == "o" or ch == "u":
        count = count + 1
print(count)
