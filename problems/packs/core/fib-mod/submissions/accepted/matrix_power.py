def mat_mult(x, y, m):
    return [
        [(x[0][0] * y[0][0] + x[0][1] * y[1][0]) % m, (x[0][0] * y[0][1] + x[0][1] * y[1][1]) % m],
        [(x[1][0] * y[0][0] + x[1][1] * y[1][0]) % m, (x[1][0] * y[0][1] + x[1][1] * y[1][1]) % m],
    ]


def mat_pow(base, e, m):
    result = [[1 % m, 0], [0, 1 % m]]
    while e > 0:
        if e & 1:
            result = mat_mult(result, base, m)
        base = mat_mult(base, base, m)
        e >>= 1
    return result


n, m = map(int, input().split())
# [[1, 1], [1, 0]] ** n = [[F(n+1), F(n)], [F(n), F(n-1)]]
print(mat_pow([[1, 1], [1, 0]], n, m)[0][1])
