# Splits the text into words and loops over the letters of each word.
text = input()
count = 0
for word in text.split():
    for letter in word:
        if letter in "aeiou":
            count += 1
print(count)
