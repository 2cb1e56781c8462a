# Checks the last character of each number's text, without converting it.
n = int(input())
tokens = input().split()
print(sum(1 for token in tokens if token[-1] in "02468"))
