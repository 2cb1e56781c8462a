// A judge batch: the category breakdown per judge beside the paper's, and each pair of
// judges' agreement (confusion matrix).
"use strict";
(() => {
  const data = JSON.parse(document.getElementById("judge-data").textContent);
  const config = { displaylogo: false, responsive: true };
  const cats = data.breakdown.categories;
  const traces = Object.entries(data.breakdown.judges).map(([judge, b]) => ({
    type: "bar", name: `${judge} (${b.judged} pairs${b.errors ? `, ${b.errors} errors` : ""})`,
    x: cats, y: cats.map((c) => b.shares[c]),
    text: cats.map((c) => String(b.categories[c])), textposition: "outside",
    hovertemplate: `${judge}<br>%{x}: %{y:.0%} (%{text} pairs)<extra></extra>`,
  }));
  traces.push({
    type: "bar", name: "paper (GPT-OSS-120B, 174 pairs)", x: cats, y: cats.map((c) => data.breakdown.paper[c] ?? null),
    marker: { color: "#bbb" }, hovertemplate: "paper<br>%{x}: %{y:.0%}<extra></extra>",
  });
  Plotly.newPlot("chart-breakdown", traces, {
    title: { text: "Where the speed comes from: share of judged pairs per category", font: { size: 14 } },
    barmode: "group", height: 420, margin: { l: 70, r: 20, t: 50, b: 80 },
    xaxis: { title: { text: "category" } },
    yaxis: { title: { text: "share of judged pairs" }, tickformat: ".0%", range: [0, 1.1] },
  }, config);

  const matrices = data.agreement;
  if (matrices.length) {
    const n = matrices.length;
    const traces2 = matrices.map((m, i) => ({
      type: "heatmap", x: cats, y: cats, z: m.matrix, xaxis: `x${i + 1}`, yaxis: `y${i + 1}`,
      colorscale: "Blues", showscale: i === n - 1, texttemplate: "%{z}",
      colorbar: { title: { text: "pairs", side: "top" } },
      hovertemplate: `${m.first}: %{y}<br>${m.second}: %{x}<br>%{z} pairs<extra></extra>`,
    }));
    const layout = {
      title: { text: "Agreement between judges (pairs per category pair)", font: { size: 14 } },
      height: 460, margin: { l: 130, r: 20, t: 70, b: 120 }, annotations: [],
    };
    matrices.forEach((m, i) => {
      const lo = i / n, hi = (i + 1) / n - 0.08;
      layout[`xaxis${i + 1}`] = { domain: [lo, hi], title: { text: m.second }, tickangle: 45 };
      layout[`yaxis${i + 1}`] = { title: { text: m.first }, autorange: "reversed", anchor: `x${i + 1}` };
      layout.annotations.push({ text: `${m.first} vs ${m.second}: ${Math.round(100 * m.agreement)}% agree over ${m.pairs} pairs`,
        showarrow: false, xref: "paper", yref: "paper", x: (lo + hi) / 2, y: 1.02, yanchor: "bottom" });
    });
    Plotly.newPlot("chart-agreement", traces2, layout, config);
  }
})();
