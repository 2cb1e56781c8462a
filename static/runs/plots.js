// The drawing of the metric charts: plain functions from series to Plotly figures. charts.js
// owns the data (API reads, live messages) and calls `figure` for each chart.
// - Units and axis ranges come from one table, runs/units.py, rendered into the page as
//   #metric-units: a fraction is drawn on 0…1, seconds never below 0.
// - Zoom and hidden traces survive live updates: `uirevision` is constant per chart and every
//   trace has a stable `uid`; an axis resets only when what it shows changes (step or time,
//   linear or log).
// - A short series (under SHORT_SERIES points) has markers: a single point is visible.
// - The group kinds of one run are one stacked area (they sum to 1), the tied share a line.
// - Runs grouped on the compare page: each group's mean and its spread (min–max or ±1 sd).
// - Legends name runs in full, in rows below the plot (the panel grows to fit them, the plot
//   keeps its width); the compare page shows one on every panel, even a panel of one run.
// - A log scale that cannot draw some values says so on the chart.
"use strict";

const codeoptPlots = (() => {
  const SHORT_SERIES = 20;
  const GROUP_GRID = 1000; // the most steps a group's mean and band are computed at
  const KINDS_CHART = "groups/kinds";
  const GROUP_KINDS = [
    { key: "groups/all_negative", name: "all negative", color: "#d62728" },
    { key: "groups/mixed", name: "mixed (teach)", color: "#2ca02c" },
    { key: "groups/all_positive", name: "all positive", color: "#1f77b4" },
  ];
  const TIED = { key: "groups/all_correct_tied", name: "tied within noise", color: "#111" };
  const HEIGHT = 260; // a panel without a legend below it (px)
  // Plotly's horizontal legend at font size 11, measured: a row's height, an entry's width
  // beside its text (the line sample and gaps), and a character's average width.
  const LEGEND_ROW = 20, LEGEND_ENTRY = 46, LEGEND_CHAR = 6.2;
  const LEGEND_INDENT = 70; // the legend starts at the plot's left edge (margin.l + a gap)

  const { esc, colorOf } = codeopt; // colorOf: no two runs share a colour

  let table = null;
  function units() {
    if (!table) {
      const element = document.getElementById("metric-units");
      table = element ? JSON.parse(element.textContent) : { units: {}, metrics: [] };
    }
    return table;
  }

  // The rule of runs/units.py: a key, or a key with one "*" standing for any text.
  function matches(pattern, key) {
    const star = pattern.indexOf("*");
    if (star < 0) return key === pattern;
    const head = pattern.slice(0, star), tail = pattern.slice(star + 1);
    return key.length >= head.length + tail.length && key.startsWith(head) && key.endsWith(tail);
  }

  // {name, label, low, high, fixed} of a key's unit, or null when the table has none.
  function unitOf(key) {
    const { units: byName, metrics } = units();
    const entry = metrics.find((e) => matches(e.pattern, key));
    return entry ? { ...byName[entry.unit], name: entry.unit, label: entry.label } : null;
  }

  function withAlpha(color, alpha) {
    if (color.startsWith("hsl(")) return color.replace("hsl(", "hsla(").replace(")", `, ${alpha})`);
    const n = parseInt(color.slice(1), 16);
    return `rgba(${n >> 16}, ${(n >> 8) & 255}, ${n & 255}, ${alpha})`;
  }

  // A trace's stable id from its parts. Plotly uses it in CSS class names: only letters,
  // digits, "_" and "-", and a hash of the parts, so two names that clean alike differ.
  function uidOf(...parts) {
    const text = parts.join("|");
    let hash = 0;
    for (let i = 0; i < text.length; i++) hash = (Math.imul(hash, 31) + text.charCodeAt(i)) | 0;
    return `t-${text.replace(/[^A-Za-z0-9_-]/g, "_").slice(0, 40)}-${(hash >>> 0).toString(36)}`;
  }

  // How many rows a horizontal legend of `names` takes in a panel `width` px wide: Plotly
  // lays the entries left to right and starts a row when the next one does not fit. An
  // estimate from average character widths: the panel grows by this many rows.
  function legendRows(names, width) {
    const room = Math.max(200, width - LEGEND_INDENT);
    let rows = 1, used = 0;
    names.forEach((name) => {
      const entry = LEGEND_ENTRY + LEGEND_CHAR * name.length;
      if (used > 0 && used + entry > room) { rows++; used = 0; }
      used += entry;
    });
    return rows;
  }

  const modeOf = (count) => (count < SHORT_SERIES ? "lines+markers" : "lines");
  const markerSize = (count) => (count === 1 ? 9 : 6); // a lone point stands out
  const xOf = (s, opts) => (opts.xAxis === "time" ? s.times.map((t) => new Date(t * 1000)) : s.steps);

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

  // Which chart draws `key`: one run's group kinds share the stacked chart; with several runs
  // each kind keeps a chart of its own, the runs overlaid (a stack of stacks compares nothing).
  function chartOf(key, runCount) {
    const kind = key === TIED.key || GROUP_KINDS.some((k) => k.key === key);
    return kind && runCount === 1 ? KINDS_CHART : key;
  }

  // Red markers for the non-finite points of a series, at the last finite value before them.
  function nonFiniteTrace(s, x, uid, name) {
    const mx = [], my = [], text = [];
    let lastFinite = 0;
    s.values.forEach((v, i) => {
      if (Number.isFinite(v)) { lastFinite = v; return; }
      mx.push(x[i]); my.push(lastFinite);
      text.push(`step ${s.steps[i]}: ${Number.isNaN(v) ? "NaN" : v > 0 ? "+Infinity" : "-Infinity"}`);
    });
    if (!mx.length) return null;
    return {
      uid, x: mx, y: my, name: `${name}: non-finite`, type: "scatter", mode: "markers", cliponaxis: false,
      marker: { color: "#e00", symbol: "x", size: 11, line: { width: 2 } }, meta: { role: "nonfinite" },
      text, hovertemplate: "%{text}<extra>" + esc(name) + "</extra>",
    };
  }

  // One trace per run (two with smoothing: faint raw, bold EMA), plus its non-finite markers.
  function runTraces(key, ctx) {
    const { runs, data, opts } = ctx;
    const out = [];
    let nonFinite = 0, points = 0;
    runs.forEach((run, r) => {
      const s = data[run.id] && data[run.id][key];
      if (!s) return;
      points += s.steps.length;
      const color = colorOf(r), x = xOf(s, opts), smoothed = opts.smoothing > 0;
      const mode = modeOf(s.steps.length);
      out.push({
        uid: uidOf(run.id, "raw"), x, y: s.values.map((v) => (Number.isFinite(v) ? v : null)),
        name: run.name + (smoothed ? " (raw)" : ""), type: "scatter", mode, cliponaxis: false,
        line: { color, width: smoothed ? 1 : 1.6 }, marker: { color, size: markerSize(s.steps.length) }, opacity: smoothed ? 0.3 : 1,
        connectgaps: false, customdata: s.steps, meta: { role: "raw", run: run.id },
        hovertemplate: "step %{customdata}: %{y:.6g}<extra>" + esc(run.name) + "</extra>",
      });
      if (smoothed) {
        out.push({
          uid: uidOf(run.id, "ema"), x, y: ema(s.values, opts.smoothing), name: `${run.name} (EMA ${opts.smoothing})`,
          type: "scatter", mode, cliponaxis: false, line: { color, width: 2 }, marker: { color, size: 6 },
          customdata: s.steps, meta: { role: "ema", run: run.id },
          hovertemplate: "step %{customdata}: %{y:.6g} smoothed<extra>" + esc(run.name) + "</extra>",
        });
      }
      const marks = nonFiniteTrace(s, x, uidOf(run.id, "nonfinite"), run.name);
      if (marks) { out.push(marks); nonFinite += marks.x.length; }
    });
    return { traces: out, nonFinite, points, xTitle: opts.xAxis === "time" ? "wall time (UTC)" : "step" };
  }

  // A series' finite value at `step`, interpolated linearly between its neighbours; undefined
  // outside its steps (a group's band never extends a run past its last point).
  function valueAt(steps, values, step) {
    let lo = 0, hi = steps.length - 1;
    if (hi < 0 || step < steps[0] || step > steps[hi]) return undefined;
    while (hi - lo > 1) { const mid = (lo + hi) >> 1; if (steps[mid] <= step) lo = mid; else hi = mid; }
    if (steps[lo] === step) return values[lo];
    if (steps[hi] === step) return values[hi];
    const t = (step - steps[lo]) / (steps[hi] - steps[lo]);
    return values[lo] + t * (values[hi] - values[lo]);
  }

  function thinned(sortedSteps, most) {
    if (sortedSteps.length <= most) return sortedSteps;
    const every = (sortedSteps.length - 1) / (most - 1);
    return Array.from({ length: most }, (_, i) => sortedSteps[Math.round(i * every)]);
  }

  // Runs grouped by "tag" (a group per tag: a run with two tags is in both) or by
  // "config:<key>" (a group per value of that key in the runs' stored configs, named as the
  // page's config table shows it: run.configText); each group {name, title, runs}, `title`
  // what the groups are told apart by; null when not grouping. Numbers in numeric order.
  function groupRuns(runs, by) {
    if (!by) return null;
    const title = by === "tag" ? "tag" : by.slice("config:".length);
    const groups = new Map(); // a value's JSON (1 and 1.0 alike) -> {name, value, runs}
    const add = (id, name, value, run) => {
      if (!groups.has(id)) groups.set(id, { name, value, runs: [] });
      groups.get(id).runs.push(run);
    };
    runs.forEach((run) => {
      if (by === "tag") {
        (run.tags && run.tags.length ? run.tags : ["(no tag)"]).forEach((tag) => add(tag, tag, tag, run));
        return;
      }
      const config = run.config || {};
      if (!(title in config)) { add("(unset)", "(unset)", null, run); return; }
      const value = config[title], id = JSON.stringify(value);
      const text = (run.configText || {})[title] ?? (typeof value === "string" ? value : id);
      add(id, text, value, run);
    });
    const numeric = (g) => typeof g.value === "number";
    return [...groups.values()]
      .sort((a, b) => (numeric(a) && numeric(b) ? a.value - b.value : a.name.localeCompare(b.name, undefined, { numeric: true })))
      .map((group) => ({ name: group.name, title, runs: group.runs }));
  }

  // Per group: the mean over its runs at each step (values interpolated onto the union of the
  // runs' steps), and a band around it: min–max, or ±1 sd. Drawn against steps.
  function groupTraces(key, ctx) {
    const { data, opts, groups } = ctx;
    const out = [];
    let nonFinite = 0, points = 0;
    groups.forEach((group, g) => {
      const series = [];
      group.runs.forEach((run) => {
        const s = data[run.id] && data[run.id][key];
        if (!s) return;
        points += s.steps.length;
        nonFinite += s.values.filter((v) => !Number.isFinite(v)).length;
        const smooth = ema(s.values, opts.smoothing);
        const steps = [], values = [];
        s.steps.forEach((st, i) => { if (Number.isFinite(smooth[i])) { steps.push(st); values.push(smooth[i]); } });
        if (steps.length) series.push({ steps, values });
      });
      if (!series.length) return;
      const grid = thinned([...new Set(series.flatMap((s) => s.steps))].sort((a, b) => a - b), GROUP_GRID);
      const mean = [], low = [], high = [], count = [];
      grid.forEach((step) => {
        const at = series.map((s) => valueAt(s.steps, s.values, step)).filter((v) => v !== undefined);
        const m = at.reduce((a, b) => a + b, 0) / at.length;
        const sd = Math.sqrt(at.reduce((a, b) => a + (b - m) ** 2, 0) / at.length);
        mean.push(m); count.push(at.length);
        low.push(opts.spread === "sd" ? m - sd : Math.min(...at));
        high.push(opts.spread === "sd" ? m + sd : Math.max(...at));
      });
      // "learning_rate=0.0003 (2 runs)": the runs of the group that have this metric
      const color = colorOf(g), name = `${group.title}=${group.name} (${series.length} run${series.length === 1 ? "" : "s"})`;
      const band = { type: "scatter", mode: "lines", x: grid, line: { width: 0, color }, hoverinfo: "skip", showlegend: false, legendgroup: group.name };
      out.push({ ...band, uid: uidOf("group", group.name, "high"), y: high, meta: { role: "band-high", group: group.name } });
      out.push({ ...band, uid: uidOf("group", group.name, "low"), y: low, fill: "tonexty", fillcolor: withAlpha(color, 0.2), meta: { role: "band-low", group: group.name } });
      out.push({
        uid: uidOf("group", group.name, "mean"), type: "scatter", mode: modeOf(grid.length), x: grid, y: mean, cliponaxis: false,
        name, legendgroup: group.name, line: { color, width: 2 }, marker: { color, size: 6 },
        customdata: count, meta: { role: "mean", group: group.name, runs: series.length },
        hovertemplate: `step %{x}: mean %{y:.6g} over %{customdata} run(s)<extra>${esc(name)}</extra>`,
      });
    });
    const spread = opts.spread === "sd" ? "±1 sd" : "min–max";
    return { traces: out, nonFinite, points, xTitle: `step (group mean, ${spread} band)`, band: spread };
  }

  // A chart's title as text (what the panel filter searches besides the metric key).
  const labelOf = (chart) => (chart === KINDS_CHART ? "groups: kinds of the step's groups (stacked) and the tied share" : chart);

  // One run's group kinds stacked (all_negative + mixed + all_positive = 1 at every step) and
  // the all-correct-tied share, a subset of them, as a dashed line over the stack.
  function kindsTraces(ctx) {
    const { runs, data, opts } = ctx;
    const byKey = data[runs[0].id] || {};
    const present = [...GROUP_KINDS, TIED].filter((k) => byKey[k.key]);
    const steps = [...new Set(present.flatMap((k) => byKey[k.key].steps))].sort((a, b) => a - b);
    const at = (s) => new Map(s.steps.map((st, i) => [st, [s.values[i], s.times[i]]]));
    const maps = Object.fromEntries(present.map((k) => [k.key, at(byKey[k.key])]));
    const times = steps.map((st) => present.map((k) => maps[k.key].get(st)).find(Boolean)[1]);
    const x = opts.xAxis === "time" ? times.map((t) => new Date(t * 1000)) : steps;
    const mode = modeOf(steps.length);
    let nonFinite = 0, points = 0;
    const column = (kind) => {
      const values = steps.map((st) => {
        const found = maps[kind.key].get(st);
        if (found && !Number.isFinite(found[0])) nonFinite++;
        return found && Number.isFinite(found[0]) ? found[0] : 0; // a kind not sent: none of it
      });
      return ema(values, opts.smoothing);
    };
    const out = [];
    present.forEach((kind) => {
      points += byKey[kind.key].steps.length;
      const common = { uid: uidOf(kind.key), x, y: column(kind), name: kind.name, type: "scatter", mode, customdata: steps, cliponaxis: false };
      if (kind === TIED) {
        out.push({
          ...common, line: { color: kind.color, width: 2, dash: "dash" }, marker: { color: kind.color, size: 5 },
          name: "tied within noise (subset)", meta: { role: "tied", key: kind.key },
          hovertemplate: "step %{customdata}: %{y:.3f} all correct, speeds within the noise band<extra></extra>",
        });
      } else {
        out.push({
          ...common, stackgroup: "kinds", line: { color: kind.color, width: 1 }, marker: { color: kind.color, size: 5 },
          fillcolor: withAlpha(kind.color, 0.45), meta: { role: "kind", key: kind.key },
          hovertemplate: `step %{customdata}: %{y:.3f} ${kind.name}<extra></extra>`,
        });
      }
    });
    return { traces: out, nonFinite, points, xTitle: opts.xAxis === "time" ? "wall time (UTC)" : "step" };
  }

  // The y axis for `unit` and what a log scale could not draw (`note`, "" when nothing).
  function yAxis(unit, title, requestedLog, traces) {
    // the points drawn from data (an EMA smooths the same values: not counted twice)
    const values = traces.filter((t) => !["nonfinite", "ema"].includes(t.meta.role) && t.visible !== false)
      .flatMap((t) => t.y).filter((v) => v !== null && Number.isFinite(v));
    const notPositive = values.filter((v) => v <= 0).length;
    let log = requestedLog, note = "";
    if (requestedLog && values.length && notPositive === values.length) {
      log = false;
      note = "log scale: no value above 0 here, drawn linear";
    } else if (requestedLog && notPositive) {
      note = `log scale: ${notPositive} value${notPositive === 1 ? "" : "s"} ≤ 0 not drawn`;
    }
    const axis = { title: { text: esc(title) }, type: log ? "log" : "linear", exponentformat: "power", uirevision: log ? "log" : "linear" };
    if (unit && !log) {
      if (unit.fixed) {
        axis.range = [unit.low, unit.high];
        axis.autorange = false;
      } else {
        const bounds = {}; // autoscaled to the data, then cut at the unit's bounds
        if (unit.low !== null) bounds.clipmin = unit.low;
        if (unit.high !== null) bounds.clipmax = unit.high;
        axis.autorangeoptions = bounds;
      }
    }
    return { axis, note, log };
  }

  // {data, layout, points, scale, note, band, label, wide} of chart `chart` (a metric key, or
  // KINDS_CHART); `label` its title as text, `band` the spread drawn around group means ("" when
  // not grouping). ctx: {runs, data: {runId: {key: {steps, values, times}}}, opts: {smoothing,
  // xAxis, log, groupBy, spread, alwaysLegend, width}, groups: groupRuns(...) or null};
  // opts.width: the panel's width in px, to fit its legend's rows.
  function figure(chart, ctx) {
    const kinds = chart === KINDS_CHART;
    const built = kinds ? kindsTraces(ctx) : ctx.groups ? groupTraces(chart, ctx) : runTraces(chart, ctx);
    const unit = unitOf(kinds ? GROUP_KINDS[0].key : chart);
    const name = kinds ? "kinds" : chart.split("/").pop();
    const { axis, note, log } = yAxis(unit, unit ? `${name} (${unit.label})` : chart, ctx.opts.log, built.traces);
    // Plotly draws a value <= 0 on a log axis at the axis edge, a line falling off the chart
    // (an EMA of values around 0 is one): such a point is left out, a gap in its line
    if (log) built.traces.forEach((t) => { t.y = t.y.map((v) => (v > 0 ? v : null)); });
    // a legend when it tells traces apart (runs, groups, raw and EMA, kinds); non-finite
    // markers are named in the title and their hover
    const inLegend = built.traces.filter((t) => t.showlegend !== false && t.meta.role !== "nonfinite").length;
    // the compare page names the runs on every panel, even one that only one run has
    const showLegend = inLegend > 1 || (Boolean(ctx.opts.alwaysLegend) && built.traces.length > 0);
    const legendNames = built.traces.filter((t) => t.showlegend !== false).map((t) => t.name);
    const legendHeight = showLegend ? LEGEND_ROW * legendRows(legendNames, ctx.opts.width || 600) + 4 : 0;
    const label = labelOf(chart);
    const title = esc(label);
    const timeAxis = ctx.opts.xAxis === "time" && !ctx.groups;
    // steps are whole numbers: over a short span Plotly would tick 0.5, 1.5, ...
    let low = Infinity, high = -Infinity;
    if (!timeAxis) built.traces.forEach((t) => (t.x || []).forEach((x) => {
      if (Number.isFinite(x)) { low = Math.min(low, x); high = Math.max(high, x); }
    }));
    const shortSpan = high >= low && high - low <= 10;
    const layout = {
      uirevision: chart,
      title: { text: title + (built.nonFinite ? ` <span style="color:#e00">(${built.nonFinite} non-finite)</span>` : ""), font: { size: 14 } },
      margin: { l: 60, r: 10, t: 36, b: 44 },
      height: HEIGHT + legendHeight, // the plot keeps its height above the legend's rows
      hovermode: "x unified",
      showlegend: showLegend,
      // In rows at the panel's foot, below the axis title, never over an axis: Plotly widens
      // the bottom margin to fit it, and the plot keeps the panel's whole width.
      legend: {
        orientation: "h", xref: "paper", x: 0, xanchor: "left", yref: "container", y: 0, yanchor: "bottom",
        font: { size: 11 }, uirevision: chart, title: { text: "" },
      },
      xaxis: {
        // automargin: the tick labels and the title keep their room above the legend
        title: { text: built.xTitle, standoff: 4 }, automargin: true, type: timeAxis ? "date" : "linear",
        autorangeoptions: timeAxis ? {} : { clipmin: 0 }, // steps are never negative
        uirevision: `${timeAxis ? "time" : "step"}:${ctx.opts.groupBy || ""}`,
        ...(shortSpan ? { tick0: 0, dtick: 1 } : {}),
      },
      yaxis: axis,
      annotations: note ? [{
        text: esc(note), xref: "paper", yref: "paper", x: 0.5, y: 1, xanchor: "center", yanchor: "top",
        showarrow: false, font: { color: "#a60", size: 12 }, bgcolor: "rgba(255,255,255,0.85)",
      }] : [],
    };
    // the stacked kinds get two grid columns: a long stack reads better wide
    return {
      data: built.traces, layout, points: built.points, scale: log ? "log" : "linear", note,
      band: built.band || "", label, wide: kinds,
    };
  }

  // Fill the compare page's "group by" select (when the page has one) from the runs' tags
  // and config keys: first the keys whose values differ between the runs (`differingKeys`,
  // the rows of the page's config-differences table, in its order), then the others, marked
  // "(same in all)"; `onChange` redraws.
  function bindGroupControl(runs, onChange, differingKeys = []) {
    const select = document.getElementById("group-by");
    if (!select) return;
    const differing = new Set(differingKeys);
    const varies = (key) => differing.has(key);
    const others = [...new Set(runs.flatMap((run) => Object.keys(run.config || {})))]
      .filter((key) => !varies(key)).sort((a, b) => a.localeCompare(b));
    const keys = [...differingKeys, ...others];
    const options = [["", "none (each run)"]];
    if (runs.some((run) => run.tags && run.tags.length)) options.push(["tag", "tag"]);
    keys.forEach((key) => options.push([`config:${key}`, `config: ${key}${varies(key) ? "" : " (same in all)"}`]));
    select.replaceChildren(...options.map(([value, label]) => new Option(label, value)));
    ["group-by", "group-spread"].forEach((id) => document.getElementById(id)?.addEventListener("change", onChange));
  }

  return { figure, chartOf, groupRuns, labelOf, bindGroupControl, unitOf, colorOf, ema, KINDS_CHART };
})();
