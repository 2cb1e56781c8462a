// Shared by every page script (loaded first, in base.html's head): escaping, number formatting,
// the job status and progress cells, table rows, the Plotly options. Page scripts keep
// only what is theirs.
"use strict";

const codeopt = (() => {
  const ENTITIES = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" };

  // Text made safe for HTML, in element content and in quoted attributes.
  const esc = (value) => String(value).replace(/[&<>"']/g, (c) => ENTITIES[c]);

  // A number with `digits` decimals; `missing` for null, undefined or NaN.
  const fmt = (value, digits = 2, missing = "–") =>
    value === null || value === undefined || Number.isNaN(Number(value)) ? missing : Number(value).toFixed(digits);

  // "2026-12-01 12:00:00" from an ISO timestamp.
  const when = (iso) => esc(String(iso || "").slice(0, 19).replace("T", " "));

  // A job's status badge, with its error after it.
  const statusCell = (status, error) =>
    `<span class="status status-${esc(status)}">${esc(status)}</span>` +
    (error ? ` <span class="error">${esc(error)}</span>` : "");

  // A progress bar with "done/total" (or a percentage when `total` is 1), and the stage.
  function progressCell(done, total, stage = "") {
    if (!total) return stage ? `<small>${esc(stage)}</small>` : "–";
    const label = total === 1 ? `${fmt(100 * done, 0)}%` : `${done}/${total}`;
    return `<progress max="${total}" value="${done}"></progress> ${label}` + (stage ? ` <small>${esc(stage)}</small>` : "");
  }

  // Replace the rows of `tbody` with one per item: cells(item) returns the cells' HTML
  // (already escaped); each row carries the item's status for the page's CSS.
  function fillTable(tbody, items, cells) {
    tbody.innerHTML = "";
    for (const item of items) {
      const tr = document.createElement("tr");
      if (item.status) tr.dataset.status = item.status;
      tr.innerHTML = cells(item).map((c) => `<td>${c}</td>`).join("");
      tbody.appendChild(tr);
    }
  }

  // The modebar keeps the buttons people use (download, zoom, pan, reset): a short bar.
  const plotConfig = {
    displaylogo: false, responsive: true,
    modeBarButtonsToRemove: ["select2d", "lasso2d", "autoScale2d", "zoomIn2d", "zoomOut2d",
      "toggleSpikelines", "hoverClosestCartesian", "hoverCompareCartesian"],
  };
  // Plotly shows its modebar in the figure's top right corner, where a long title runs: the
  // title goes below a strip of this height (px), so the modebar never covers it.
  const MODEBAR_ROOM = 30;
  const TITLE_ROOM = 24; // a one-line title at font size 14, and a gap to the plot

  // `layout` with its title moved below the modebar's strip and the top margin grown to fit.
  function roomForModebar(layout) {
    const title = layout.title;
    const margin = { ...(layout.margin || {}) };
    if (!title || !title.text) {
      margin.t = Math.max(margin.t ?? 0, MODEBAR_ROOM);
      return { ...layout, margin };
    }
    margin.t = Math.max(margin.t ?? 0, MODEBAR_ROOM + TITLE_ROOM);
    return {
      ...layout, margin,
      title: { ...title, yref: "container", y: 1, yanchor: "top", pad: { ...(title.pad || {}), t: MODEBAR_ROOM } },
    };
  }

  // Draw (or redraw) a chart: every page draws through here, so that every chart has the
  // same modebar and room for it.
  const plot = (element, data, layout, config = {}) =>
    Plotly.react(element, data, roomForModebar(layout), { ...plotConfig, ...config });

  // Twenty colours told apart at a glance (Plotly's ten, then black, light and dark ones
  // none of those ten is), then hues a golden angle apart: no two series share one.
  const PALETTE = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#17becf", "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22",
    "#111111", "#aec7e8", "#98df8a", "#ff9896", "#c5b0d5", "#ffbb78", "#393b79", "#637939", "#843c39", "#7b4173"];
  function colorOf(index) {
    if (index < PALETTE.length) return PALETTE[index];
    const k = index - PALETTE.length;
    const hue = ((k * 137.508) % 360).toFixed(2);
    return `hsl(${hue}, 70%, ${k % 2 ? 32 : 48}%)`;
  }

  // An axis titled `text`; on a chart with no data (`empty`) it draws no ticks, grid or zero
  // line, so Plotly's placeholder range (-1 to 6) is not read as data.
  const axis = (text, empty, extra = {}) => ({
    title: { text }, ...extra,
    ...(empty ? { showticklabels: false, showgrid: false, zeroline: false } : {}),
  });
  // The note across the middle of a chart with no data (none when it has data).
  const emptyNote = (empty, text) => (empty
    ? [{ text, showarrow: false, xref: "paper", yref: "paper", x: 0.5, y: 0.5 }] : []);

  // The runs list's and the Training page's live cells: while active() says something on the
  // page is queued or running, GET runs/live.json for the runs in ids() every everyMs and hand
  // the answer to apply(); a failed read is tried again at the next beat.
  const pollRuns = (url, ids, active, apply, everyMs = 2000) => {
    async function poll() {
      if (!active()) return;
      try {
        const answer = await fetch(`${url}?ids=${ids().join(",")}`, { headers: { Accept: "application/json" } });
        if (answer.ok) apply(await answer.json());
      } catch { /* the next beat tries again */ }
      setTimeout(poll, everyMs);
    }
    setTimeout(poll, everyMs);
  };

  return { esc, fmt, when, statusCell, progressCell, fillTable, plotConfig, plot, colorOf, axis, emptyNote, pollRuns };
})();
