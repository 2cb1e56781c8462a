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
  codeopt.plot("chart-runtimes", traces, {
    height: 420, margin: { l: 70, r: 10, t: 20, b: 90 }, boxmode: "group",
    xaxis: codeopt.axis("test", !points.length),
    yaxis: codeopt.axis("CPU time per run (ms, log scale)", !points.length, { type: "log" }),
    legend: { orientation: "h", y: 1.08 },
    annotations: codeopt.emptyNote(!points.length, data.empty),
  });

  // The probe curve: CPU time of each correct reference against SIZE, per generator.
  const curves = JSON.parse(document.getElementById("probe-data").textContent);
  const dashes = ["solid", "dot", "dash", "dashdot", "longdash"];
  const probeTraces = [];
  let target = null;
  curves.forEach((curve, g) => {
    target = target ?? curve.target_s;
    const names = [...new Set(curve.points.flatMap((p) => Object.keys(p.costs)))].sort();
    for (const name of names) {
      const points = curve.points.filter((p) => p.costs[name] !== null && p.costs[name] !== undefined);
      probeTraces.push({
        type: "scatter", mode: "lines+markers", name: `${name} · ${curve.generator}`,
        x: points.map((p) => p.size), y: points.map((p) => 1000 * p.costs[name]),
        text: points.map((p) => `${esc(name)} on ${esc(curve.generator)}: SIZE ${p.size}, ${p.bytes} bytes (${esc(p.purpose)})`),
        line: { dash: dashes[g % dashes.length] },
        hovertemplate: "%{text}<br>%{y:.1f} ms<extra></extra>",
      });
      const stopped = curve.points.filter((p) => p.costs[name] === null);
      if (stopped.length) {
        probeTraces.push({
          type: "scatter", mode: "markers", name: `${name} · ${curve.generator}: did not finish`,
          x: stopped.map((p) => p.size), y: stopped.map(() => 1500 * curve.target_s),
          marker: { symbol: "triangle-up", color: "#7f7f7f", size: 9 },
          hovertemplate: `${esc(name)}: stopped at the probe's cap at SIZE %{x}<extra></extra>`,
        });
      }
    }
  });
  const empty = !probeTraces.length;
  const shapes = target && !empty ? [{ type: "line", xref: "paper", x0: 0, x1: 1, y0: 1000 * target,
    y1: 1000 * target, line: { dash: "dash", color: "#d62728", width: 1 } }] : [];
  const notes = target && !empty ? [{ xref: "paper", x: 1, xanchor: "right", y: Math.log10(1000 * target),
    yanchor: "bottom", text: `T_slow ${target} s`, showarrow: false, font: { color: "#d62728", size: 11 } }] : [];
  codeopt.plot("chart-probes", probeTraces, {
    height: 380, margin: { l: 70, r: 10, t: 20, b: 60 }, shapes,
    xaxis: codeopt.axis("SIZE (generator argument, log scale)", empty, { type: "log" }),
    yaxis: codeopt.axis("CPU time of one run (ms, log scale)", empty, { type: "log" }),
    legend: { orientation: "h", y: -0.25 },
    annotations: notes.concat(codeopt.emptyNote(empty, "no generator measured yet: run a dataset build")),
  });
})();
