t = input().strip()
p = input().strip()
print(t.count(p))  # str.count skips past each match: overlapping occurrences are lost
