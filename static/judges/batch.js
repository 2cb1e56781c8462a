// A judge batch: the category breakdown per judge beside the paper's, and each pair of
// judges' agreement (confusion matrix).
"use strict";
(() => {
  const data = JSON.parse(document.getElementById("judge-data").textContent);
  const cats = data.breakdown.categories;
  const verdicts = data.breakdown.verdicts; // the categories and "unclear" (an abstention)
  // counts: an empty cell is white, any pair at all is visibly blue
  const ZERO_WHITE = [[0, "#ffffff"], [1e-6, "#deebf7"], [1, "#08519c"]];
  const traces = Object.entries(data.breakdown.judges).map(([judge, b]) => ({
    type: "bar",
    name: `${judge} (${b.judged} pairs${b.unclear ? `, ${b.unclear} unclear` : ""}${b.errors ? `, ${b.errors} errors` : ""})`,
    x: cats, y: cats.map((c) => b.shares[c]),
    text: cats.map((c) => String(b.categories[c])), textposition: "outside",
    hovertemplate: `${judge}<br>%{x}: %{y:.0%} (%{text} pairs)<extra></extra>`,
  }));
  traces.push({
    type: "bar", name: "paper (GPT-OSS-120B, 174 pairs)", x: cats, y: cats.map((c) => data.breakdown.paper[c] ?? null),
    marker: { color: "#bbb" }, hovertemplate: "paper<br>%{x}: %{y:.0%}<extra></extra>",
  });
  codeopt.plot("chart-breakdown", traces, {
    title: { text: "Where the speed comes from: share of judged pairs per category", font: { size: 14 } },
    barmode: "group", height: 420, margin: { l: 70, r: 20, t: 50, b: 80 },
    xaxis: { title: { text: "category" } },
    yaxis: { title: { text: "share of judged pairs" }, tickformat: ".0%", range: [0, 1.1] },
  });

  // confusion matrices side by side: panels [{x title, y title, matrix, note, hover}]
  function matrixPanels(id, title, panels) {
    const n = panels.length;
    const traces = panels.map((p, i) => ({
      type: "heatmap", x: verdicts, y: verdicts, z: p.matrix, xaxis: `x${i + 1}`, yaxis: `y${i + 1}`,
      colorscale: ZERO_WHITE, zmin: 0, showscale: i === n - 1, texttemplate: "%{z}",
      colorbar: { title: { text: "pairs", side: "top" } },
      hovertemplate: `${p.yTitle}: %{y}<br>${p.xTitle}: %{x}<br>%{z} pairs<extra></extra>`,
    }));
    const layout = {
      title: { text: title, font: { size: 14 } },
      height: 460, margin: { l: 130, r: 20, t: 70, b: 120 }, annotations: [],
    };
    panels.forEach((p, i) => {
      const lo = i / n, hi = (i + 1) / n - 0.08;
      layout[`xaxis${i + 1}`] = { domain: [lo, hi], title: { text: p.xTitle }, tickangle: 45 };
      layout[`yaxis${i + 1}`] = { title: { text: p.yTitle }, autorange: "reversed", anchor: `x${i + 1}` };
      layout.annotations.push({ text: p.note, showarrow: false, xref: "paper", yref: "paper",
        x: (lo + hi) / 2, y: 1.02, yanchor: "bottom" });
    });
    codeopt.plot(id, traces, layout);
  }

  if (data.agreement.length) {
    matrixPanels("chart-agreement", "Agreement between judges (pairs per category pair)",
      data.agreement.map((m) => ({ xTitle: m.second, yTitle: m.first, matrix: m.matrix,
        note: `${m.first} vs ${m.second}: ${Math.round(100 * m.agreement)}% agree over ${m.pairs} pairs` })));
  }
  // each judge against the ground truth of a labelled batch (rows: truth, columns: judge)
  if ((data.truth || []).length) {
    matrixPanels("chart-truth", "Judges against the ground truth (pairs per category pair)",
      data.truth.map((t) => ({ xTitle: t.judge, yTitle: "ground truth", matrix: t.matrix,
        note: `${t.judge}: ${Math.round(100 * t.accuracy)}% right over ${t.pairs} pairs` })));
  }

  // the review as a work queue: j/k the next/previous pair, n/p the next/previous page
  let cursor = -1;
  document.addEventListener("keydown", (event) => {
    const tag = (event.target.tagName || "").toLowerCase();
    if (["input", "select", "textarea"].includes(tag) || event.ctrlKey || event.metaKey || event.altKey) return;
    if (event.key === "n" || event.key === "p") {
      const link = document.querySelector(`nav.pager a[rel=${event.key === "n" ? "next" : "prev"}]`);
      if (link) window.location.href = link.href;
      return;
    }
    if (event.key !== "j" && event.key !== "k") return;
    const pairs = document.querySelectorAll("section.pair");
    if (!pairs.length) return;
    cursor = event.key === "j" ? Math.min(cursor + 1, pairs.length - 1) : Math.max(cursor - 1, 0);
    const next = pairs[cursor];
    next.scrollIntoView({ block: "start" });
    document.body.dataset.currentPair = next.id;
  });
})();
