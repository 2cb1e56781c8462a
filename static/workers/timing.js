// The Timing page: jobs with live progress, and noise charts from the stored results.
"use strict";
(() => {
  // Job fields (package names, errors, workers) are data: escape before they become markup.
  const { esc, fmt, statusCell, progressCell, fillTable, when } = codeopt;
  const layout = (title, x, y, empty) => ({
    title: { text: title, font: { size: 14 } }, height: 280, margin: { l: 60, r: 10, t: 36, b: 50 },
    xaxis: codeopt.axis(x, empty), yaxis: codeopt.axis(y, empty),
    annotations: codeopt.emptyNote(empty, "no finished job has data for this yet"),
  });

  function table(jobs) {
    fillTable(document.querySelector("#jobs tbody"), jobs, (job) => {
      const jitter = Object.entries(job.jitter).map(([m, j]) => `${m}: ${fmt(j, 1)}`).join(", ") || "–";
      return [when(job.created_at), esc(job.kind), esc(job.package), esc(job.modes),
        statusCell(job.status, job.error), progressCell(job.progress_done, job.progress_total),
        fmt(job.queue_wait_s, 1), fmt(job.duration_s, 1), esc(job.verdict || "–"),
        fmt(job.speed_percentile, 1), esc(jitter), esc(job.sandbox_errors ?? "–"), esc(job.worker || "–")];
    });
  }

  // A Retry button is a plain POST form (the page's CSRF token), answered by a redirect here.
  function retryForm(url) {
    const token = document.querySelector("input[name=csrfmiddlewaretoken]").value;
    return `<form method="post" action="${esc(url)}" class="retry"><input type="hidden" name="csrfmiddlewaretoken" value="${esc(token)}"><button type="submit">Retry</button></form>`;
  }

  function sandbox(data) {
    const s = data.sandbox;
    document.getElementById("sandbox").innerHTML =
      `Sandbox: isolation <b>${esc(s.isolation)}</b> · ${esc(s.errors_last_hour)} sandbox errors and ` +
      `${esc(s.jobs_failed_last_hour)} jobs failed in the sandbox in the last hour · ` +
      `<span class="status status-${esc(s.status)}">${esc(s.status)}</span>`;
    const body = document.querySelector("#sandbox-failures tbody");
    body.innerHTML = data.sandbox_failures.length ? "" : '<tr><td colspan="5">none</td></tr>';
    for (const f of data.sandbox_failures) {
      const tr = document.createElement("tr");
      tr.dataset.kind = f.kind;
      tr.innerHTML = [esc((f.failed_at || "").slice(0, 19).replace("T", " ")), esc(f.kind), esc(f.what),
        `<span class="error">${esc(f.error)}</span>`, retryForm(f.retry_url)].map((c) => `<td>${c}</td>`).join("");
      body.appendChild(tr);
    }
  }

  function charts(data) {
    const jobs = data.jobs;
    const modes = ["wall", "cpu", "instructions"];
    const jitterJobs = jobs.filter((j) => Object.keys(j.jitter).length);
    codeopt.plot("chart-jitter", modes.map((mode) => ({
      type: "bar", name: mode,
      x: jitterJobs.map((j) => `${j.kind === "rank_check" ? "rank check: " : ""}${j.package} ${j.created_at.slice(11, 16)}`),
      y: jitterJobs.map((j) => j.jitter[mode] ?? null),
    })), { ...layout("Rank jitter per mode", "jitter job", "percentile points", !jitterJobs.length), barmode: "group",
      // jitter is never negative; all-zero bars must still read as 0 on a 0-5 axis
      yaxis: codeopt.axis("percentile points", !jitterJobs.length, { rangemode: "tozero",
        range: [0, Math.max(5, ...jitterJobs.flatMap((j) => Object.values(j.jitter).filter((v) => v !== null))) * 1.1] }) });
    const cvs = jobs.flatMap((j) => j.cpu_cvs);
    codeopt.plot("chart-cv", [{ type: "histogram", x: cvs, nbinsx: 30 }],
      layout("CV of repeated CPU times", "coefficient of variation (stdev / mean)", "tests", !cvs.length));
    const workers = data.queues.timing_workers;
    codeopt.plot("chart-throughput", [{ type: "bar", x: workers.map((w) => w.worker), y: workers.map((w) => w.busy_s),
      text: workers.map((w) => `${w.jobs} timing jobs, ${w.scoring_groups} scoring groups, ${w.builds} dataset builds`
        + (w.executions_per_s === null ? "" : `, ${w.executions_per_s} executions/s`)),
      hovertemplate: "%{x}: %{y:.1f} s busy<br>%{text}<extra></extra>" }],
      layout("Work per worker (last hour)", "worker", "seconds busy", !workers.length));
    queueWait(jobs.filter((j) => j.queue_wait_s !== null));
    const depth = data.queues.depth;
    document.getElementById("queues").textContent =
      `Queue depth: ${Object.entries(depth).map(([q, n]) => `${q} ${n}`).join(", ")} · timing jobs waiting: ${data.queues.timing_jobs_waiting} · scoring groups waiting: ${data.queues.scoring_groups_waiting}`;
  }

  const WAIT_AXIS_MIN_S = 1; // the shortest wait axis: sub-millisecond waits read as ~0 s, not as a scale

  // A wait in the unit that reads best: "0.4 ms", "3.2 s", "12.5 min".
  const waitText = (seconds) => (seconds < 1 ? `${fmt(1000 * seconds, 1)} ms`
    : seconds < 120 ? `${fmt(seconds, 1)} s` : `${fmt(seconds / 60, 1)} min`);

  // Queue wait per job, in seconds from 0: a wait is never negative (a start stamped a hair
  // before its queueing by another host's clock is drawn as no wait), and the axis spans at
  // least WAIT_AXIS_MIN_S, so that Plotly does not stretch microseconds into a scale.
  const TIME_AXIS_MIN_MS = 2 * 60 * 1000; // one job alone: a 2-minute span, not milliseconds

  function queueWait(started) {
    const waits = started.map((j) => Math.max(0, j.queue_wait_s));
    const times = started.map((j) => new Date(j.created_at));
    const empty = !started.length;
    const xaxis = codeopt.axis("queued at (UTC)", empty);
    if (times.length) {  // the time axis spans at least TIME_AXIS_MIN_MS around the jobs
      const first = Math.min(...times), last = Math.max(...times);
      const pad = Math.max(0, TIME_AXIS_MIN_MS - (last - first)) / 2;
      if (pad) Object.assign(xaxis, { range: [new Date(first - pad), new Date(last + pad)], autorange: false });
    }
    codeopt.plot("chart-wait", [{
      type: "scatter", mode: "markers", x: times, y: waits, cliponaxis: false,
      text: waits.map(waitText), hovertemplate: "queued %{x|%H:%M:%S}: waited %{text}<extra></extra>",
    }], { ...layout("Queue wait per job", "queued at (UTC)", "queue wait (seconds)", empty), xaxis,
      yaxis: codeopt.axis("queue wait (seconds)", empty, {
        rangemode: "nonnegative", range: [0, Math.max(WAIT_AXIS_MIN_S, ...waits) * 1.1], tickformat: ",~r" }) });
  }

  function calibration(data) {
    const body = document.querySelector("#calibration tbody");
    if (!body || !data.calibration) return;
    const hosts = data.calibration.hosts || [];
    body.innerHTML = hosts.length ? "" : '<tr><td colspan="7">no host calibrated yet</td></tr>';
    for (const h of hosts) {
      const scoring = h.refuses_scoring ? `<b>refuses: ${esc(h.refuses_scoring)}</b>` : "takes scoring work";
      body.insertAdjacentHTML("beforeend",
        `<tr data-host="${esc(h.hostname)}"><td>${esc(h.hostname)}</td><td>${fmt(h.factor, 3)}</td>` +
        `<td>${fmt(h.applied_factor, 3)}</td><td>${fmt(h.age_s, 0)}</td><td>${fmt(h.spread, 3)}</td><td>${esc(h.baseline)}</td><td>${scoring}</td></tr>`);
    }
  }

  // Timing noise by mode (stored by manage.py noise_by_mode): p95 rank jitter per mode, idle
  // beside loaded, with the paper's figures as dashed reference lines. Drawn once: it
  // changes only when a new diagnostic is stored (a reload shows it).
  function modeNoise() {
    const source = document.getElementById("mode-noise-data");
    const data = source ? JSON.parse(source.textContent) : null;
    if (!data || !data.result || !document.getElementById("chart-mode-noise")) return;
    const noise = data.result;
    const colors = { idle: "#4c78a8", loaded: "#e45756" };
    const traces = noise.conditions.map((condition) => {
      const rows = noise.modes.map((mode) => noise.rows.find((r) => r.mode === mode && r.condition === condition) || {});
      return {
        type: "bar", name: condition, x: noise.modes, y: rows.map((r) => r.p95 ?? null),
        marker: { color: colors[condition] }, cliponaxis: false,
        // the value on each bar: a 0 (instructions) must read as measured, not missing
        text: rows.map((r) => (r.p95 === null || r.p95 === undefined ? "–" : fmt(r.p95, 1))), textposition: "outside",
        customdata: rows.map((r) => [fmt(r.p50), fmt(r.max), r.programs ?? "–", r.scorings ?? "–"]),
        hovertemplate: `${condition}, %{x}: p95 %{y:.2f} points<br>p50 %{customdata[0]}, max %{customdata[1]}` +
          "<br>%{customdata[2]} programs, %{customdata[3]} scorings<extra></extra>",
      };
    });
    const highest = Math.max(...data.paper.map((p) => p.points), ...noise.rows.map((r) => r.p95 ?? 0));
    const shapes = data.paper.map((p) => ({ type: "line", xref: "paper", x0: 0, x1: 1, y0: p.points, y1: p.points,
      layer: "below", line: { dash: "dash", color: "#777", width: 1.5 } }));
    const annotations = data.paper.map((p) => ({ text: `paper: ${esc(p.label)} (~${p.points} points)`, showarrow: false,
      xref: "paper", x: 1, xanchor: "right", y: p.points, yanchor: "bottom", font: { size: 11, color: "#555" } }));
    codeopt.plot("chart-mode-noise", traces, {
      title: { text: "Rank jitter p95 per timing mode, idle vs loaded", font: { size: 14 } },
      height: 400, margin: { l: 60, r: 10, t: 36, b: 50 }, barmode: "group", shapes, annotations,
      xaxis: codeopt.axis("timing mode", false),
      yaxis: codeopt.axis("rank jitter p95 (percentile points)", false, { rangemode: "tozero", range: [0, highest * 1.12] }),
    });
  }

  async function refresh() {
    const response = await fetch("/timing/data.json", { credentials: "same-origin" });
    if (!response.ok) return;
    const data = await response.json();
    table(data.jobs);
    sandbox(data);
    calibration(data);
    charts(data);
    document.body.dataset.timingReady = "1";
    const busy = data.jobs.some((j) => ["queued", "running", "lost"].includes(j.status));
    setTimeout(refresh, busy ? 1000 : 5000);
  }
  modeNoise();
  refresh();
})();
