// Live metric charts for one run or several overlaid runs.
// Data: GET /api/runs/<id>/metrics/ (downsampled server-side, extremes kept), then live
// points over the websocket /ws/runs/<id>/. Non-finite values arrive as "NaN",
// "Infinity", "-Infinity" and are drawn as red markers, never silently dropped.
// The panel filter (#panel-filter) hides the panels whose metric key and title do not hold its
// text; a hidden panel is drawn when it is shown again.
"use strict";

const codeoptCharts = (() => {
  const MAX_POINTS = 2000;
  // Drawing (units, axes, markers, stacked group kinds, run groups): static/runs/plots.js.
  const { figure, chartOf, groupRuns, labelOf } = codeoptPlots;
  const state = { runs: [], data: {}, charts: {}, dirty: new Set(), frame: null, options: {} };
  const controls = () => ({
    alwaysLegend: Boolean(state.options.compare),
    smoothing: parseFloat(document.getElementById("smoothing").value),
    xAxis: document.getElementById("x-axis").value,
    log: document.getElementById("log-scale").checked,
    groupBy: document.getElementById("group-by")?.value || "",
    spread: document.getElementById("group-spread")?.value || "minmax",
  });

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
    div.dataset.title = labelOf(key);
    div.dataset.points = "0";
    const grid = section.querySelector(".grid");
    const after = [...grid.children].find((el) => el.dataset.key > key);
    grid.insertBefore(div, after || null);
    state.charts[key] = div;
    filterPanels();
    return div;
  }

  // The filter's text, lower case ("" shows every panel).
  const filterText = () => (document.getElementById("panel-filter")?.value || "").trim().toLowerCase();

  // Hide the panels whose metric key and title do not hold the filter's text (case-insensitive),
  // and the sections left empty; count the panels shown. Plotly cannot size a hidden chart: a
  // hidden panel is not drawn, and when shown again it is drawn (or resized to its width).
  function filterPanels() {
    const text = filterText();
    const panels = Object.values(state.charts);
    let shown = 0;
    panels.forEach((div) => {
      const haystack = `${div.dataset.key}\n${div.dataset.title || ""}`.toLowerCase();
      const hide = text !== "" && !haystack.includes(text);
      const showing = div.hidden && !hide;
      div.hidden = hide;
      if (showing && div.dataset.stale !== "0") state.dirty.add(div.dataset.key);
      else if (showing) Plotly.Plots.resize(div);
      if (!hide) shown++;
    });
    document.querySelectorAll("#charts section").forEach((section) => {
      section.hidden = ![...section.querySelectorAll(".chart")].some((div) => !div.hidden);
    });
    const count = document.getElementById("panel-count");
    if (count) {
      count.textContent = `${shown}/${panels.length} panels`;
      count.dataset.shown = String(shown);
      count.dataset.total = String(panels.length);
    }
    if (state.dirty.size) schedule([]);
  }

  // Draw chart `chart` (a metric key or codeoptPlots.KINDS_CHART) from the data held.
  function render(chart) {
    const div = ensureChart(chart);
    if (div.hidden) { div.dataset.stale = "1"; return; } // drawn when shown
    const opts = { ...controls(), width: div.clientWidth };
    const drawn = figure(chart, { runs: state.runs, data: state.data, opts, groups: groupRuns(state.runs, opts.groupBy) });
    div.classList.toggle("wide", drawn.wide); // before drawing: Plotly sizes to the div
    codeopt.plot(div, drawn.data, drawn.layout);
    div.dataset.points = String(drawn.points);
    div.dataset.scale = drawn.scale;
    div.dataset.note = drawn.note;
    div.dataset.band = drawn.band;
    div.dataset.stale = "0";
  }

  // The charts that draw `keys` (one run's group kinds share one), each once.
  const chartsOf = (keys) => [...new Set(keys.map((key) => chartOf(key, state.runs.length)))];

  function schedule(keys) {
    chartsOf(keys).forEach((chart) => state.dirty.add(chart));
    if (!state.dirty.size) return;
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

  // The run page's header: status, last step, a training run's step and stage (elements
  // other pages lack are skipped). Two processes' messages may cross: the last step only grows.
  function showRunState(message) {
    const el = (id) => document.getElementById(id) || {};
    if (message.status) Object.assign(el("run-status"), { textContent: message.status, className: `status status-${message.status}` });
    const lastStep = el("run-last-step");
    if (Number.isInteger(message.last_step) && !(Number(lastStep.textContent) >= message.last_step)) lastStep.textContent = message.last_step;
    if (Number.isInteger(message.step)) el("training-step").textContent = message.step;
    if (typeof message.stage === "string") el("training-stage").textContent = message.stage ? `(${message.stage})` : "";
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
      }
      // A resumed training run dropped what its killed attempt logged past the checkpoint.
      if (message.type === "reload") {
        load(run).then(() => schedule(allKeys()));
        if (Number.isInteger(message.last_step)) (document.getElementById("run-last-step") || {}).textContent = message.last_step;
        return;
      }
      showRunState(message);
    };
    socket.onclose = (event) => {
      if (event.code === 4404) { setLive("not allowed", false); return; }
      setLive("reconnecting…", false);
      const delay = Math.min(30000, 500 * 2 ** attempt);
      setTimeout(() => connect(run, attempt + 1), delay);
    };
  }

  // runs: [{id, name, tags?, config?}]; options: {compare: a legend on every panel,
  // differingKeys: the config keys the runs differ in, offered first to group by}.
  async function start(runs, options = {}) {
    state.runs = runs;
    state.options = options;
    try {
      await Promise.all(runs.map(load));
    } catch (error) {
      const message = document.createElement("p");
      message.className = "error";
      message.textContent = error.message;
      document.getElementById("charts").replaceChildren(message);
      return;
    }
    performance.mark("codeopt-series-loaded");  // benchmarks/run_page_read.py splits the load here
    const keys = allKeys();
    if (!keys.length) document.querySelector("#charts .loading").textContent = "No metrics yet: charts appear as points arrive.";
    chartsOf(keys).forEach(render);
    runs.forEach((run) => connect(run));
    const slider = document.getElementById("smoothing");
    slider.addEventListener("input", () => {
      document.getElementById("smoothing-value").textContent = slider.value;
      schedule(allKeys());
    });
    ["x-axis", "log-scale"].forEach((id) => document.getElementById(id).addEventListener("change", () => schedule(allKeys())));
    codeoptPlots.bindGroupControl(runs, () => schedule(allKeys()), options.differingKeys || []);
    document.getElementById("panel-filter")?.addEventListener("input", filterPanels);
    performance.mark("codeopt-charts-drawn");
    document.body.dataset.chartsReady = "1";
  }

  return { start, ema: codeoptPlots.ema, state };
})();
