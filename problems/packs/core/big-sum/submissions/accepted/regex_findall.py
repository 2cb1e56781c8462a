import re
import sys

data = sys.stdin.buffer.read()
numbers = re.findall(rb"-?\d+", data)
n = int(numbers[0])
print(sum(map(int, numbers[1 : n + 1])))
