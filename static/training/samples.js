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
  // Steps are whole numbers: over a short span Plotly ticks the cells' edges (-0.5, 0.5, ...).
  const span = data.steps.length ? data.steps[data.steps.length - 1] - data.steps[0] : 0;
  const stepTicks = span <= 10 ? { tick0: 0, dtick: 1 } : { tickformat: "d" };
  codeopt.plot("chart-outcomes", [
    panel(data.correct, "x", "correct"),
    panel(data.fast, "x2", "correct and fast"),
  ], {
    title: { text: "Outcomes per problem and step (share of the group's samples)", font: { size: 14 } },
    height: Math.max(260, 120 + 22 * data.problems.length), margin: { l: 180, r: 30, t: 60, b: 50 },
    xaxis: { domain: [0, 0.46], title: { text: "step: correct" }, ...stepTicks },
    xaxis2: { domain: [0.52, 0.98], title: { text: "step: correct and in the top 50%" }, ...stepTicks },
    yaxis: { automargin: true },
    plot_bgcolor: "#d9d9d9",
    // the grey cells are explained under the chart (the page's #outcomes-note), not in the
    // bottom margin, where the note ran into the step axes' labels
    annotations: data.problems.length ? [] : [{ text: "no samples yet", showarrow: false, xref: "paper", yref: "paper", x: 0.5, y: 0.5 }],
  });
})();
