import sys

input = sys.stdin.readline
n, q = map(int, input().split())
a = list(map(int, input().split()))
prefix = [0]
for x in a:
    prefix.append(prefix[-1] + x)
answers = []
for _ in range(q):
    l, r = map(int, input().split())
    answers.append(str(prefix[r] - prefix[l - 1]))
print("\n".join(answers))
