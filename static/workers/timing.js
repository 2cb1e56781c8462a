// The Timing page: jobs with live progress, and noise charts from the stored results.
"use strict";
(() => {
  // Job fields (package names, errors, workers) are data: escape before they become markup.
  const esc = (v) => String(v).replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]);
  const fmt = (v, d = 2) => (v === null || v === undefined ? "–" : Number(v).toFixed(d));
  const layout = (title, x, y, empty) => ({
    title: { text: title, font: { size: 14 } }, height: 280, margin: { l: 60, r: 10, t: 36, b: 50 },
    xaxis: { title: { text: x } }, yaxis: { title: { text: y } },
    annotations: empty ? [{ text: "no finished job has data for this yet", showarrow: false,
      xref: "paper", yref: "paper", x: 0.5, y: 0.5 }] : [],
  });

  function table(jobs) {
    const body = document.querySelector("#jobs tbody");
    body.innerHTML = "";
    for (const job of jobs) {
      const tr = document.createElement("tr");
      tr.dataset.status = job.status;
      const progress = job.progress_total
        ? `<progress max="${job.progress_total}" value="${job.progress_done}"></progress> ${job.progress_done}/${job.progress_total}`
        : "–";
      const jitter = Object.entries(job.jitter).map(([m, j]) => `${m}: ${fmt(j, 1)}`).join(", ") || "–";
      const cells = [esc(job.created_at.slice(0, 19).replace("T", " ")), esc(job.kind), esc(job.package), esc(job.modes),
        `<span class="status status-${esc(job.status)}">${esc(job.status)}</span>${job.error ? ` <span class="error">${esc(job.error)}</span>` : ""}`,
        progress, fmt(job.queue_wait_s, 1), fmt(job.duration_s, 1), esc(job.verdict || "–"),
        fmt(job.speed_percentile, 1), esc(jitter), esc(job.worker || "–")];
      tr.innerHTML = cells.map((c) => `<td>${c}</td>`).join("");
      body.appendChild(tr);
    }
  }

  function charts(data) {
    const jobs = data.jobs;
    const modes = ["wall", "cpu", "instructions"];
    const jitterJobs = jobs.filter((j) => Object.keys(j.jitter).length);
    Plotly.react("chart-jitter", modes.map((mode) => ({
      type: "bar", name: mode,
      x: jitterJobs.map((j) => `${j.package} ${j.created_at.slice(11, 16)}`),
      y: jitterJobs.map((j) => j.jitter[mode] ?? null),
    })), { ...layout("Rank jitter per mode", "jitter job", "percentile points", !jitterJobs.length), barmode: "group" },
    { displaylogo: false });
    const cvs = jobs.flatMap((j) => j.cpu_cvs);
    Plotly.react("chart-cv", [{ type: "histogram", x: cvs, nbinsx: 30 }],
      layout("CV of repeated CPU times", "coefficient of variation (stdev / mean)", "tests", !cvs.length),
      { displaylogo: false });
    const workers = data.queues.timing_workers;
    Plotly.react("chart-throughput", [{ type: "bar", x: workers.map((w) => w.worker), y: workers.map((w) => w.executions_per_s) }],
      layout("Throughput per worker (last hour)", "worker", "executions / s", !workers.length), { displaylogo: false });
    const started = jobs.filter((j) => j.queue_wait_s !== null);
    Plotly.react("chart-wait", [{ type: "scatter", mode: "markers", x: started.map((j) => new Date(j.created_at)), y: started.map((j) => j.queue_wait_s) }],
      layout("Queue wait per job", "queued at (UTC)", "seconds", !started.length), { displaylogo: false });
    const depth = data.queues.depth;
    document.getElementById("queues").textContent =
      `Queue depth: ${Object.entries(depth).map(([q, n]) => `${q} ${n}`).join(", ")} · timing jobs waiting: ${data.queues.timing_jobs_waiting}`;
  }

  async function refresh() {
    const response = await fetch("/timing/data.json", { credentials: "same-origin" });
    if (!response.ok) return;
    const data = await response.json();
    table(data.jobs);
    charts(data);
    document.body.dataset.timingReady = "1";
    const busy = data.jobs.some((j) => j.status === "queued" || j.status === "running");
    setTimeout(refresh, busy ? 1000 : 5000);
  }
  refresh();
})();
