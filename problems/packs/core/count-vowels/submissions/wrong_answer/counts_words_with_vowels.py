# Counts the words that have a vowel instead of the vowels themselves.
text = input()
print(sum(1 for word in text.split() if any(ch in "aeiou" for ch in word)))
