// Calibration page: stored vs re-measured runtimes, the fitted line and the identity.
"use strict";
(() => {
  const { esc } = codeopt;
  const node = document.getElementById("calibration-data");
  if (!node) return;
  const c = JSON.parse(node.textContent);
  const unit = c.mode === "instructions" ? "instructions" : "s";
  const olds = c.points.map((p) => p[0]);
  const lo = Math.min(...olds), hi = Math.max(...olds);
  codeopt.plot("chart-calibration", [
    { type: "scatter", mode: "markers", name: "(stored, re-measured) pairs", x: olds, y: c.points.map((p) => p[1]),
      text: c.points.map((p) => `${esc(p[2])} on ${esc(p[3])}`), hovertemplate: "%{text}<br>old %{x:.4g}, new %{y:.4g}<extra></extra>",
      marker: { size: 7, color: "#1f77b4" } },
    { type: "scatter", mode: "lines", name: `fit: new = ${c.slope.toFixed(3)}·old ${c.intercept < 0 ? "−" : "+"} ${Math.abs(c.intercept).toFixed(3)}`,
      x: [lo, hi], y: [c.slope * lo + c.intercept, c.slope * hi + c.intercept], line: { color: "#d62728" } },
    { type: "scatter", mode: "lines", name: "no drift (new = old)", x: [lo, hi], y: [lo, hi],
      line: { color: "#7f7f7f", dash: "dot" } },
  ], {
    title: { text: `Drift fit: Spearman ${c.spearman_before === null ? "n/a" : c.spearman_before.toFixed(3)} before → ${c.spearman_after === null ? "n/a" : c.spearman_after.toFixed(3)} after correction`, font: { size: 14 } },
    height: 460, margin: { l: 80, r: 20, t: 50, b: 60 },
    xaxis: { title: { text: `stored runtime (${unit}, ${c.mode})` } },
    yaxis: { title: { text: `re-measured now (${unit}, ${c.mode})` } },
    legend: { orientation: "h", y: -0.2 },
  });
})();
