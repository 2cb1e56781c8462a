// Live metric charts for one run or several overlaid runs.
// Data: GET /api/runs/<id>/metrics/ (downsampled server-side, extremes kept), then live
// points over the websocket /ws/runs/<id>/. Non-finite values arrive as "NaN",
// "Infinity", "-Infinity" and are drawn as red markers, never silently dropped.
"use strict";

const codeoptCharts = (() => {
  const MAX_POINTS = 2000;
  const COLORS = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#17becf", "#8c564b", "#e377c2"];
  // y-axis units by key prefix; a key not listed is labelled with its own name only.
  const UNITS = {
    rewards: "reward",
    groups: "fraction of groups",
    eval: "fraction of problems",
    losses: "loss",
    timing: "percentile points",
    sandbox: "fraction of executions",
  };
  const state = { runs: [], data: {}, charts: {}, dirty: new Set(), frame: null };
  const controls = () => ({
    smoothing: parseFloat(document.getElementById("smoothing").value),
    xAxis: document.getElementById("x-axis").value,
    log: document.getElementById("log-scale").checked,
  });

  // Plotly reads a little HTML in titles and hover text: show names literally.
  const esc = (v) => String(v).replace(/[&<>]/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;" })[c]);

  function toNumber(v) {
    if (typeof v === "number") return v;
    if (v === "Infinity") return Infinity;
    if (v === "-Infinity") return -Infinity;
    return NaN;
  }

  function prefixOf(key) {
    const i = key.indexOf("/");
    return i > 0 ? key.slice(0, i) : "other";
  }

  // Debiased exponential moving average over finite values (TensorBoard's smoothing).
  function ema(values, weight) {
    if (weight <= 0) return values;
    const out = new Array(values.length);
    let last = 0, count = 0;
    for (let i = 0; i < values.length; i++) {
      const v = values[i];
      if (!Number.isFinite(v)) { out[i] = count ? last / (1 - Math.pow(weight, count)) : null; continue; }
      last = last * weight + (1 - weight) * v;
      count++;
      out[i] = last / (1 - Math.pow(weight, count));
    }
    return out;
  }

  function mergeSeries(runId, key, incoming) {
    const byKey = state.data[runId] || (state.data[runId] = {});
    const s = byKey[key] || (byKey[key] = { steps: [], values: [], times: [] });
    const steps = incoming.steps, values = incoming.values.map(toNumber);
    // Live messages carry one receipt time per batch; API reads carry one per point.
    const times = incoming.times || steps.map(() => incoming.time);
    const last = s.steps.length ? s.steps[s.steps.length - 1] : -1;
    if (steps.length && steps[0] > last) {
      for (let i = 0; i < steps.length; i++) { s.steps.push(steps[i]); s.values.push(values[i]); s.times.push(times[i]); }
      return;
    }
    // Out-of-order or re-sent steps: merge, the newer value winning.
    const merged = new Map();
    s.steps.forEach((st, i) => merged.set(st, [s.values[i], s.times[i]]));
    steps.forEach((st, i) => merged.set(st, [values[i], times[i]]));
    const order = [...merged.keys()].sort((a, b) => a - b);
    s.steps = order; s.values = order.map((st) => merged.get(st)[0]); s.times = order.map((st) => merged.get(st)[1]);
  }

  function ensureChart(key) {
    if (state.charts[key]) return state.charts[key];
    const root = document.getElementById("charts");
    const loading = root.querySelector(".loading");
    if (loading) loading.remove();
    const prefix = prefixOf(key);
    let section = root.querySelector(`section[data-prefix="${CSS.escape(prefix)}"]`);
    if (!section) {
      section = document.createElement("section");
      section.dataset.prefix = prefix;
      // Keys come from trainers: text nodes only, never markup.
      const heading = document.createElement("h2");
      heading.textContent = `${prefix}/`;
      const grid = document.createElement("div");
      grid.className = "grid";
      section.append(heading, grid);
      const sections = [...root.querySelectorAll("section")];
      const after = sections.find((el) => el.dataset.prefix > prefix);
      root.insertBefore(section, after || null);
    }
    const div = document.createElement("div");
    div.className = "chart";
    div.dataset.key = key;
    div.dataset.points = "0";
    const grid = section.querySelector(".grid");
    const after = [...grid.children].find((el) => el.dataset.key > key);
    grid.insertBefore(div, after || null);
    state.charts[key] = div;
    return div;
  }

  function traces(key, opts) {
    const out = [];
    let nonFinite = 0;
    state.runs.forEach((run, r) => {
      const s = state.data[run.id] && state.data[run.id][key];
      if (!s) return;
      const color = COLORS[r % COLORS.length];
      const x = opts.xAxis === "time" ? s.times.map((t) => new Date(t * 1000)) : s.steps;
      const finite = s.values.map((v) => (Number.isFinite(v) ? v : null));
      const smoothed = opts.smoothing > 0;
      out.push({
        x, y: finite, name: run.name + (smoothed ? " (raw)" : ""), type: "scatter", mode: "lines",
        line: { color, width: smoothed ? 1 : 1.6 }, opacity: smoothed ? 0.3 : 1,
        connectgaps: false, customdata: s.steps,
        hovertemplate: "step %{customdata}: %{y:.6g}<extra>" + esc(run.name) + "</extra>",
      });
      if (smoothed) {
        out.push({
          x, y: ema(s.values, opts.smoothing), name: `${run.name} (EMA ${opts.smoothing})`,
          type: "scatter", mode: "lines", line: { color, width: 2 }, customdata: s.steps,
          hovertemplate: "step %{customdata}: %{y:.6g} smoothed<extra>" + esc(run.name) + "</extra>",
        });
      }
      // Non-finite points: a red marker at the last finite value before them (or 0).
      const mx = [], my = [], text = [];
      let lastFinite = 0;
      s.values.forEach((v, i) => {
        if (Number.isFinite(v)) { lastFinite = v; return; }
        mx.push(x[i]); my.push(lastFinite);
        text.push(`step ${s.steps[i]}: ${Number.isNaN(v) ? "NaN" : v > 0 ? "+Infinity" : "-Infinity"}`);
      });
      nonFinite += mx.length;
      if (mx.length) {
        out.push({
          x: mx, y: my, name: `${run.name}: non-finite`, type: "scatter", mode: "markers",
          marker: { color: "#e00", symbol: "x", size: 11, line: { width: 2 } },
          text, hovertemplate: "%{text}<extra>" + esc(run.name) + "</extra>",
        });
      }
    });
    return { data: out, nonFinite };
  }

  function render(key) {
    const div = ensureChart(key);
    const opts = controls();
    const { data, nonFinite } = traces(key, opts);
    const unit = UNITS[prefixOf(key)];
    const layout = {
      title: { text: esc(key) + (nonFinite ? ` <span style="color:#e00">(${nonFinite} non-finite)</span>` : ""), font: { size: 14 } },
      margin: { l: 60, r: 10, t: 36, b: 44 },
      height: 260,
      hovermode: "x unified",
      showlegend: state.runs.length > 1 || opts.smoothing > 0,
      legend: { orientation: "h", y: -0.3 },
      xaxis: { title: { text: opts.xAxis === "time" ? "wall time (UTC)" : "step" }, type: opts.xAxis === "time" ? "date" : "linear" },
      yaxis: { title: { text: esc(unit ? `${key.split("/").pop()} (${unit})` : key) }, type: opts.log ? "log" : "linear", exponentformat: "power" },
    };
    Plotly.react(div, data, layout, { responsive: true, displaylogo: false });
    let points = 0;
    state.runs.forEach((run) => { const s = state.data[run.id] && state.data[run.id][key]; if (s) points += s.steps.length; });
    div.dataset.points = String(points);
  }

  function schedule(keys) {
    keys.forEach((k) => state.dirty.add(k));
    if (state.frame) return;
    state.frame = requestAnimationFrame(() => {
      state.frame = null;
      const keys = [...state.dirty];
      state.dirty.clear();
      keys.forEach(render);
    });
  }

  function allKeys() {
    const keys = new Set();
    Object.values(state.data).forEach((byKey) => Object.keys(byKey).forEach((k) => keys.add(k)));
    return [...keys].sort();
  }

  async function load(run) {
    const response = await fetch(`/api/runs/${run.id}/metrics/?max_points=${MAX_POINTS}`, { credentials: "same-origin" });
    if (!response.ok) throw new Error(`metrics of run ${run.id}: HTTP ${response.status}`);
    const body = await response.json();
    state.data[run.id] = {};
    Object.entries(body.series).forEach(([key, s]) => mergeSeries(run.id, key, s));
  }

  function setLive(text, ok) {
    const el = document.getElementById("live-state");
    el.textContent = text;
    el.className = ok ? "live live-on" : "live live-off";
  }

  function connect(run, attempt = 0) {
    const scheme = location.protocol === "https:" ? "wss" : "ws";
    const socket = new WebSocket(`${scheme}://${location.host}/ws/runs/${run.id}/`);
    socket.onopen = () => {
      setLive("live", true);
      // Points sent while we were disconnected: fetch the series again.
      if (attempt > 0) load(run).then(() => schedule(allKeys()));
      attempt = 0;
    };
    socket.onmessage = (event) => {
      const message = JSON.parse(event.data);
      if (message.type === "metrics") {
        Object.entries(message.series).forEach(([key, s]) => mergeSeries(run.id, key, s));
        schedule(Object.keys(message.series));
      } else if (message.type === "status") {
        const badge = document.getElementById("run-status");
        if (badge) { badge.textContent = message.status; badge.className = `status status-${message.status}`; }
      }
    };
    socket.onclose = (event) => {
      if (event.code === 4404) { setLive("not allowed", false); return; }
      setLive("reconnecting…", false);
      const delay = Math.min(30000, 500 * 2 ** attempt);
      setTimeout(() => connect(run, attempt + 1), delay);
    };
  }

  async function start(runs) {
    state.runs = runs;
    try {
      await Promise.all(runs.map(load));
    } catch (error) {
      const message = document.createElement("p");
      message.className = "error";
      message.textContent = error.message;
      document.getElementById("charts").replaceChildren(message);
      return;
    }
    const keys = allKeys();
    if (!keys.length) document.querySelector("#charts .loading").textContent = "No metrics yet: charts appear as points arrive.";
    keys.forEach(render);
    runs.forEach((run) => connect(run));
    const slider = document.getElementById("smoothing");
    slider.addEventListener("input", () => {
      document.getElementById("smoothing-value").textContent = slider.value;
      schedule(allKeys());
    });
    ["x-axis", "log-scale"].forEach((id) => document.getElementById(id).addEventListener("change", () => schedule(allKeys())));
    document.body.dataset.chartsReady = "1";
  }

  return { start, ema, state };
})();
