// Evaluations page: the list with live progress (polled), selection for comparison and CSV,
// and the comparison charts: pτ pass@1 over τ with 95% intervals, and the win-rate matrix.
"use strict";
(() => {
  const { esc, statusCell, progressCell, when } = codeopt;
  const fmt = (v, d = 3) => codeopt.fmt(v, d);
  const selected = new Set(new URLSearchParams(location.search).get("compare")?.split(",").filter(Boolean) || []);

  // A win rate's 95% interval: none over fewer than two problems (evaluations/metrics.py).
  const interval = (cell) => (cell.low === null
    ? `[n/a — ${cell.compared === 1 ? "one problem" : "no problem"}]` : `[${fmt(cell.low, 2)}, ${fmt(cell.high, 2)}]`);

  const node = document.getElementById("comparison-data");
  if (node) {
    const data = JSON.parse(node.textContent);
    const lines = data.curves.map((c) => ({
      type: "scatter", mode: "lines+markers", name: `#${c.id} ${c.name}`,
      x: c.points.map((p) => p.tau), y: c.points.map((p) => p.value),
      error_y: { type: "data", symmetric: false,
        array: c.points.map((p) => (p.high ?? p.value) - p.value),
        arrayminus: c.points.map((p) => p.value - (p.low ?? p.value)) },
      hovertemplate: `#${c.id} ${esc(c.name)}<br>τ = %{x}%: p<sub>τ</sub> pass@1 %{y:.3f}<extra></extra>`,
    }));
    codeopt.plot("chart-ptau", lines, {
      title: { text: "pτ pass@1 over τ (error bars: 95% bootstrap interval over problems)", font: { size: 14 } },
      height: 420, margin: { l: 70, r: 20, t: 50, b: 60 },
      xaxis: { title: { text: "τ: speed bar, top τ% of human references (%)" }, autorange: "reversed" },
      yaxis: { title: { text: "pτ pass@1 (share of samples, mean over problems)" }, range: [0, 1.05] },
    });

    const w = data.win_rates;
    if (w.ids.length > 1) {
      const labels = w.ids.map((id, i) => `#${id} ${w.names[i]}`);
      const z = w.matrix.map((row) => row.map((cell) => (cell ? cell.rate : null)));
      const text = w.matrix.map((row) => row.map((cell) => (cell
        ? `${fmt(cell.rate, 2)} ${interval(cell)}<br>${cell.wins}W ${cell.ties}T ${cell.losses}L`
        : "")));
      codeopt.plot("chart-winrate", [{
        type: "heatmap", x: labels, y: labels, z, zmin: 0, zmax: 1, text, texttemplate: "%{text}",
        colorscale: [[0, "#d73027"], [0.5, "#fee08b"], [1, "#1a9850"]], hoverongaps: false,
        hovertemplate: "%{y} over %{x}: %{z:.2f}<extra></extra>",
        colorbar: { title: { text: "win rate", side: "top" } },
      }], {
        title: { text: "Win rate of the row over the column (median-speed correct sample per problem; ties ½; 95% CI)", font: { size: 14 } },
        height: Math.max(320, 120 + 60 * labels.length), margin: { l: 220, r: 20, t: 60, b: 120 },
        xaxis: { title: { text: "against" }, type: "category" },
        yaxis: { title: { text: "evaluation" }, type: "category", autorange: "reversed" },
      });
    }
  }

  function table(rows) {
    const body = document.querySelector("#evaluation-list tbody");
    body.innerHTML = rows.length ? "" : '<tr class="empty"><td colspan="13">No evaluation yet: evaluate a run\'s checkpoint, a base model or uploaded completions below.</td></tr>';
    for (const e of rows) {
      const tr = document.createElement("tr");
      tr.id = `evaluation-${e.evaluation}`;
      tr.dataset.status = e.status;
      const what = e.run ? `${esc(e.source)}: run #${e.run}, step ${e.step}` : esc(e.source);
      const progress = e.progress_total ? e.progress_done / e.progress_total : (e.status === "done" ? 1 : 0);
      const left = e.input_errors.length
        ? `<details><summary>${e.input_errors.length}</summary>${e.input_errors.map((x) => `line ${x.line}: ${esc(x.error)}`).join("<br>")}</details>` : "0";
      const warning = e.interval_warning ? `<br><small class="warning interval-warning">${esc(e.interval_warning)}</small>` : "";
      const progressed = e.status === "queued" && e.waiting
        ? `<small class="waiting">${esc(e.waiting)}</small>` : progressCell(progress, 1, e.progress_text || e.stage);
      const cells = [
        `<input type="checkbox" value="${e.evaluation}"${selected.has(String(e.evaluation)) ? " checked" : ""}${e.status === "done" ? "" : " disabled"}>`,
        `#${e.evaluation} ${esc(e.name)}${e.status === "done" ? ` <small><a href="/judges/?evaluation=${e.evaluation}#start">judge speedups</a></small>` : ""}${warning}`, what, when(e.created_at),
        statusCell(e.status, e.error), progressed,
        e.n_problems ?? "–", String(e.n), fmt(e.p100), fmt(e.p50), fmt(e.p30), fmt(e.p10), left,
      ];
      tr.innerHTML = cells.map((c) => `<td>${c}</td>`).join("");
      body.appendChild(tr);
    }
    body.querySelectorAll("input[type=checkbox]").forEach((box) => box.addEventListener("change", () => {
      if (box.checked) selected.add(box.value); else selected.delete(box.value);
    }));
  }

  document.getElementById("compare-selected").addEventListener("click", () => {
    if (selected.size) location.href = `?compare=${[...selected].join(",")}#comparison`;
  });
  document.getElementById("export-selected").addEventListener("click", () => {
    if (selected.size) location.href = `/evaluations/export.csv?ids=${[...selected].join(",")}`;
  });

  let shown = "";
  async function refresh() {
    const response = await fetch("/evaluations/data.json", { credentials: "same-origin" });
    if (!response.ok) return;
    const text = await response.text();
    if (text === shown) return; // unchanged: keep the rows (and any opened details) as they are
    shown = text;
    table(JSON.parse(text).evaluations);
  }
  refresh();
  setInterval(refresh, 2000);
})();
