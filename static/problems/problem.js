// Problem page: reference runtime distribution per test (box of the correct references,
// every reference as a point by label; runs stopped at the cap drawn at the cap).
"use strict";
(() => {
  const { esc } = codeopt;
  const data = JSON.parse(document.getElementById("runtime-data").textContent);
  const points = data.points;
  const groups = [
    { name: "correct (accepted)", color: "#1f77b4", symbol: "circle",
      keep: (p) => p.label === "accepted" && p.verdict === "OK", box: true },
    { name: "too slow (labelled)", color: "#ff7f0e", symbol: "diamond",
      keep: (p) => p.label === "too_slow" && p.cost_ms !== null },
    { name: "wrong (labelled)", color: "#d62728", symbol: "x",
      keep: (p) => p.label === "wrong" && p.cost_ms !== null },
    { name: "stopped at the cap", color: "#7f7f7f", symbol: "triangle-up",
      keep: (p) => p.cost_ms === null, atCap: true },
  ];
  const traces = [];
  for (const group of groups) {
    const mine = points.filter(group.keep);
    if (!mine.length) continue;
    traces.push({
      type: "box", name: group.name, x: mine.map((p) => p.test),
      y: mine.map((p) => (group.atCap ? data.cap_ms : p.cost_ms)),
      text: mine.map((p) => `${esc(p.solution)} (${esc(p.language)}): ${esc(p.verdict)}`),
      boxpoints: "all", jitter: 0.5, pointpos: 0,
      marker: { color: group.color, symbol: group.symbol, size: 7 },
      fillcolor: group.box ? "rgba(31,119,180,0.15)" : "rgba(0,0,0,0)",
      line: { color: group.box ? group.color : "rgba(0,0,0,0)" },
      hovertemplate: "%{text}<br>%{y:.1f} ms<extra></extra>",
    });
  }
  Plotly.newPlot("chart-runtimes", traces, {
    height: 420, margin: { l: 70, r: 10, t: 20, b: 90 }, boxmode: "group",
    xaxis: codeopt.axis("test", !points.length),
    yaxis: codeopt.axis("CPU time per run (ms, log scale)", !points.length, { type: "log" }),
    legend: { orientation: "h", y: 1.08 },
    annotations: codeopt.emptyNote(!points.length, "no stored reference runtimes: run a dataset build"),
  }, codeopt.plotConfig);
})();
