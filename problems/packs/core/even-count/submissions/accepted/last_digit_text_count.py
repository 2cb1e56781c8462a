# A number is even when its last digit is. Counts "0 ", "2 ", ... in the line itself:
# no split, no conversion to int, five passes of bytes.count in C.
import sys

sys.stdin.buffer.readline()
line = sys.stdin.buffer.readline().rstrip() + b" "
print(sum(line.count(digit + b" ") for digit in (b"0", b"2", b"4", b"6", b"8")))
