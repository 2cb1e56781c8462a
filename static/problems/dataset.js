// Dataset page: the funnel of the selected build, and the builds with live progress.
"use strict";
(() => {
  const { esc, statusCell, progressCell, fillTable, when } = codeopt;
  const fmt = (v, d = 1) => codeopt.fmt(v, d);
  const funnel = JSON.parse(document.getElementById("funnel-data").textContent);
  const aside = ["train", "test", "untimeable"];
  const stages = funnel.filter(([name]) => !aside.includes(name));
  const split = funnel.filter(([name]) => name === "train" || name === "test");
  const untimeable = funnel.find(([name]) => name === "untimeable");
  const traces = [{ type: "funnel", name: "problems", y: stages.map(([n]) => n), x: stages.map(([, c]) => c),
    textinfo: "value+percent initial", marker: { color: "#1f77b4" } }];
  if (untimeable) {
    // refused at stage 3 with a reason of their own: no input slows any reference
    traces.push({ type: "funnel", name: "untimeable", y: ["untimeable"],
      x: [untimeable[1]], textinfo: "value", marker: { color: "#7f7f7f" },
      hovertemplate: "%{x} problem(s): no input their generators make slows any correct reference<extra></extra>" });
  }
  for (const [name, count] of split) {
    traces.push({ type: "funnel", name: `${name} split`, y: ["split (train / test)"], x: [count],
      textinfo: `value+text`, text: [name], marker: { color: name === "train" ? "#2ca02c" : "#9467bd" } });
  }
  codeopt.plot("chart-funnel", traces, {
    title: { text: "Problems passing each stage (count; % of candidates)", font: { size: 14 } },
    height: 360, margin: { l: 220, r: 20, t: 40, b: 40 }, funnelmode: "stack",
    xaxis: codeopt.axis("problems", !funnel.length),
    annotations: codeopt.emptyNote(!funnel.length, "no finished build yet"),
  });

  function table(builds) {
    fillTable(document.querySelector("#builds tbody"), builds, (b) => {
      const kept = b.funnel.length ? b.funnel.find(([n]) => n === "time-discriminative")[1] : null;
      const rate = b.wall_seconds ? b.executions / b.wall_seconds : null;
      return [`<a href="?build=${b.id}">#${b.id}</a>`, when(b.created_at), esc(b.started_by || "–"),
        statusCell(b.status, b.error), progressCell(b.progress, 1, b.stage),
        String(b.executions), fmt(b.wall_seconds), fmt(rate), kept === null ? "–" : String(kept)];
    });
  }

  async function refresh() {
    const response = await fetch("/dataset/builds.json", { credentials: "same-origin" });
    if (response.ok) table((await response.json()).builds);
  }
  refresh();
  setInterval(refresh, 2000);
})();
