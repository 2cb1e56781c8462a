// Rewards page: configurations x simulator metrics (heatmaps), reward-vs-quality curves,
// and the simulations with live progress.
"use strict";
(() => {
  const { esc, statusCell, progressCell, fillTable, when } = codeopt;
  const fmt = (v, d = 2) => codeopt.fmt(v, d, "n/a");
  const node = document.getElementById("simulation-data");

  if (node) {
    const sim = JSON.parse(node.textContent);
    const names = sim.results.map((r) => r.name + (r.flagged ? " ⚑" : ""));
    const levels = sim.noise_cvs.map((cv) => `CV ${cv}`);
    // Three panels, each on its own honest scale: rho in [-1, 1]; shares in [0, 1], with the
    // all-negative colours reversed (red is bad on every panel).
    const redToGreen = [[0, "#d73027"], [0.5, "#fee08b"], [1, "#1a9850"]];
    const panels = [
      { key: "monotonicity", title: "monotonicity (Spearman ρ, quality vs reward)", zmin: -1, zmax: 1, reverse: false },
      { key: "signal_density", title: "signal density (share of problems)", zmin: 0, zmax: 1, reverse: false },
      { key: "all_negative_rate", title: `all-negative rate, G = ${sim.group_size} (share of groups)`, zmin: 0, zmax: 1, reverse: true },
    ];
    const width = 1 / 3, gap = 0.09;
    const traces = panels.map((panel, i) => {
      const z = sim.results.map((r) => r.by_noise.map((n) => n[panel.key]));
      return {
        type: "heatmap", x: levels, y: names, z, zmin: panel.zmin, zmax: panel.zmax,
        colorscale: redToGreen, reversescale: panel.reverse, xaxis: `x${i + 1}`, yaxis: "y",
        text: z.map((row) => row.map((v) => fmt(v))), texttemplate: "%{text}", hoverongaps: false,
        hovertemplate: `%{y}<br>${panel.title}<br>%{x}: %{text}<extra></extra>`,
        colorbar: { x: (i + 1) * width - gap + 0.01, xanchor: "left", len: 1, thickness: 10,
          title: { text: panel.key === "monotonicity" ? "ρ" : "share", side: "top" } },
      };
    });
    const layout = {
      title: { text: `Simulation #${sim.id}: configurations × simulator metrics per noise level (⚑ flagged)`, font: { size: 14 } },
      height: Math.max(300, 90 + 28 * names.length), margin: { l: 230, r: 30, t: 70, b: 50 },
      yaxis: { autorange: "reversed", automargin: true },
      annotations: panels.map((p, i) => ({ text: p.title, showarrow: false, xref: "paper", yref: "paper",
        x: i * width + (width - gap) / 2, y: 1.0, yanchor: "bottom", font: { size: 12 } })),
    };
    panels.forEach((p, i) => {
      layout[`xaxis${i + 1}`] = { domain: [i * width, (i + 1) * width - gap], title: { text: "injected noise (CV)" }, type: "category" };
    });
    codeopt.plot("chart-heatmap", traces, layout);

    const select = document.getElementById("curve-noise");
    sim.noise_cvs.forEach((cv, i) => select.add(new Option(`CV ${cv}`, String(i))));
    const centers = Array.from({ length: 10 }, (_, b) => (b + 0.5) / 10);
    function curves() {
      const level = Number(select.value);
      // a colour of its own per configuration (Plotly's ten would repeat past ten, two
      // flagged ones then alike); the dash says flagged
      const lines = sim.results.map((r, i) => ({
        type: "scatter", mode: "lines+markers", name: r.name + (r.flagged ? ` (${r.flags.join(", ")})` : ""),
        x: centers, y: r.by_noise[level].curve, connectgaps: false,
        line: { color: codeopt.colorOf(i), dash: r.flagged ? "dot" : "solid" }, marker: { color: codeopt.colorOf(i) },
        hovertemplate: `${esc(r.name)}<br>quality %{x:.2f}: mean reward %{y:.3f}<extra></extra>`,
      }));
      codeopt.plot("chart-curves", lines, {
        title: { text: `Mean reward per quality decile at noise CV ${sim.noise_cvs[level]} (dotted: flagged)`, font: { size: 14 } },
        height: 460, margin: { l: 70, r: 20, t: 50, b: 60 },
        xaxis: { title: { text: "reference quality: 1 − speed percentile among the other references / 100 (decile centres)" }, range: [0, 1] },
        yaxis: { title: { text: "mean reward (reward units)" } },
        legend: { font: { size: 11 } },
      });
    }
    select.addEventListener("change", curves);
    curves();
  }

  function table(simulations) {
    const body = document.querySelector("#simulation-list tbody");
    fillTable(body, simulations, (s) => {
      const link = s.status === "done" ? `<a href="?simulation=${s.id}#results">#${s.id}</a>` : `#${s.id}`;
      return [link + (s.rank_against === "own_outputs" ? " <small>(negative control)</small>" : ""),
        when(s.created_at), esc(s.started_by || "–"), statusCell(s.status, s.error),
        progressCell(s.progress, 1, s.stage), String(s.configs),
        s.problems === null ? "–" : String(s.problems), esc(s.noise_cvs.join(", ")),
        String(s.group_size), fmt(s.wall_seconds)];
    });
    simulations.forEach((s, i) => { body.rows[i].dataset.id = s.id; });
  }

  async function refresh() {
    const response = await fetch("/rewards/simulations.json", { credentials: "same-origin" });
    if (response.ok) table((await response.json()).simulations);
  }
  refresh();
  setInterval(refresh, 2000);
})();
