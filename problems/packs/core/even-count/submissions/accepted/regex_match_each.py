# Matches every number's text against a regular expression for "ends in an even digit".
import re

n = int(input())
count = 0
for token in input().split():
    if re.fullmatch(r"[0-9]*[02468]", token):
        count += 1
print(count)
