# Top-down recursion solve(i, room) with a memo table (a list per item): O(n*W) states.
import sys

sys.setrecursionlimit(10000)


def main():
    data = sys.stdin.read().split()
    n, capacity = int(data[0]), int(data[1])
    weights = [int(x) for x in data[2:2 + 2 * n:2]]
    values = [int(x) for x in data[3:3 + 2 * n:2]]
    memo = [[-1] * (capacity + 1) for _ in range(n)]

    def solve(i, room):
        """Best value from items i..n-1 with `room` capacity left."""
        if i == n:
            return 0
        row = memo[i]
        if row[room] >= 0:
            return row[room]
        result = solve(i + 1, room)
        if weights[i] <= room:
            take = values[i] + solve(i + 1, room - weights[i])
            if take > result:
                result = take
        row[room] = result
        return result

    print(solve(0, capacity))


main()
