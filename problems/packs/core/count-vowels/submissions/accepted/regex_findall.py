# Finds every vowel with a regular expression: a list of one-letter strings.
import re

text = input()
print(len(re.findall("[aeiou]", text)))
