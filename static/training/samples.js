// Samples page: per problem and step, the share of the group correct, and correct and fast.
"use strict";
(() => {
  const data = JSON.parse(document.getElementById("outcome-data").textContent);
  const fmt = (v) => (v === null ? "–" : `${Math.round(100 * v)}%`);
  const panel = (z, axis, title) => ({
    type: "heatmap", x: data.steps, y: data.problems, z, zmin: 0, zmax: 1, xaxis: axis, yaxis: "y",
    // 0% is red, not white: a problem sampled with nothing right differs from one not
    // sampled at all, which stays a grey gap (the plot's background)
    colorscale: [[0, "#d73027"], [0.5, "#fee08b"], [1, "#1a9850"]], showscale: axis === "x2",
    colorbar: { title: { text: "share of the group", side: "right" } }, hoverongaps: false,
    text: z.map((row) => row.map(fmt)),
    hovertemplate: `%{y}, step %{x}<br>${title}: %{text}<extra></extra>`,
  });
  Plotly.newPlot("chart-outcomes", [
    panel(data.correct, "x", "correct"),
    panel(data.fast, "x2", "correct and fast"),
  ], {
    title: { text: "Outcomes per problem and step (share of the group's samples)", font: { size: 14 } },
    height: Math.max(260, 120 + 22 * data.problems.length), margin: { l: 180, r: 30, t: 60, b: 50 },
    xaxis: { domain: [0, 0.46], title: { text: "step: correct" } },
    xaxis2: { domain: [0.52, 0.98], title: { text: "step: correct and in the top 50%" } },
    yaxis: { automargin: true },
    plot_bgcolor: "#d9d9d9",
    annotations: data.problems.length
      ? [{ text: "grey: not sampled at that step", showarrow: false, xref: "paper", yref: "paper", x: 0, y: -0.12, xanchor: "left", font: { size: 11, color: "#555" } }]
      : [{ text: "no samples yet", showarrow: false, xref: "paper", yref: "paper", x: 0.5, y: 0.5 }],
  }, codeopt.plotConfig);
})();
