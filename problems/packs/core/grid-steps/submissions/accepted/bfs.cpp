#include <bits/stdc++.h>
using namespace std;

int main() {
    ios::sync_with_stdio(false);
    cin.tie(nullptr);
    int R, C;
    cin >> R >> C;
    vector<string> g(R);
    for (auto &row : g) cin >> row;
    vector<int> dist(R * C, -1);
    vector<int> q;
    q.reserve(R * C);
    dist[0] = 0;
    q.push_back(0);
    const int dr[4] = {1, -1, 0, 0}, dc[4] = {0, 0, 1, -1};
    for (size_t h = 0; h < q.size(); h++) {
        int r = q[h] / C, c = q[h] % C;
        for (int k = 0; k < 4; k++) {
            int nr = r + dr[k], nc = c + dc[k];
            if (nr < 0 || nr >= R || nc < 0 || nc >= C || g[nr][nc] != '.') continue;
            if (dist[nr * C + nc] >= 0) continue;
            dist[nr * C + nc] = dist[q[h]] + 1;
            q.push_back(nr * C + nc);
        }
    }
    cout << dist[R * C - 1] << "\n";
}
