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

  const plotConfig = { displaylogo: false, responsive: true };

  // An axis titled `text`; on a chart with no data (`empty`) it draws no ticks, grid or zero
  // line, so Plotly's placeholder range (-1 to 6) is not read as data.
  const axis = (text, empty, extra = {}) => ({
    title: { text }, ...extra,
    ...(empty ? { showticklabels: false, showgrid: false, zeroline: false } : {}),
  });
  // The note across the middle of a chart with no data (none when it has data).
  const emptyNote = (empty, text) => (empty
    ? [{ text, showarrow: false, xref: "paper", yref: "paper", x: 0.5, y: 0.5 }] : []);

  return { esc, fmt, when, statusCell, progressCell, fillTable, plotConfig, axis, emptyNote };
})();
