# Treats y as a vowel.
text = input()
print(sum(text.count(v) for v in "aeiouy"))
