// The run list's table: sort by any column (click its header; again to reverse) and pick
// the columns shown (config columns from each run's stored config among them; the choice is
// kept in this browser). Client-side: the page holds at most 200 runs. Its status, last-step
// and metric cells stay live while something is queued or running.
"use strict";

(() => {
  const table = document.getElementById("run-table");
  if (!table) return;
  const STORE = "codeopt.runList.columns";
  const headers = [...table.tHead.rows[0].cells];
  const body = table.tBodies[0];
  const rows = () => [...body.rows].filter((row) => row.dataset.run);

  // A cell's sort key: its data-sort, else its text; "" (missing) always sorts last.
  const keyOf = (cell) => (cell.dataset.sort !== undefined ? cell.dataset.sort : cell.textContent.trim());
  const numeric = (index) => rows().every((row) => {
    const key = keyOf(row.cells[index]);
    return key === "" || Number.isFinite(Number(key));
  });

  function sortBy(index, direction) {
    const asNumbers = numeric(index);
    const sorted = rows().sort((a, b) => {
      const x = keyOf(a.cells[index]), y = keyOf(b.cells[index]);
      if (x === "" || y === "") return (x === "") - (y === "");
      const order = asNumbers ? Number(x) - Number(y) : x.localeCompare(y, undefined, { numeric: true });
      return direction === "ascending" ? order : -order;
    });
    body.append(...sorted);
    headers.forEach((th, i) => (i === index ? th.setAttribute("aria-sort", direction) : th.removeAttribute("aria-sort")));
  }

  headers.forEach((th, index) => {
    if (!th.dataset.col) return;
    const button = document.createElement("button");
    button.type = "button";
    button.className = "sort";
    button.append(...th.childNodes);
    th.append(button);
    button.addEventListener("click", () => sortBy(index, th.getAttribute("aria-sort") === "ascending" ? "descending" : "ascending"));
  });

  function show(index, visible) {
    headers[index].hidden = !visible;
    rows().forEach((row) => { row.cells[index].hidden = !visible; });
  }

  let saved = {};
  try { saved = JSON.parse(localStorage.getItem(STORE) || "{}"); } catch { saved = {}; }
  const picks = document.querySelector("#column-picker .picks");
  headers.forEach((th, index) => {
    const col = th.dataset.col;
    if (!col) return;
    if (col in saved) show(index, saved[col]);
    const label = document.createElement("label");
    const box = document.createElement("input");
    box.type = "checkbox";
    box.dataset.col = col;
    box.checked = !th.hidden;
    box.addEventListener("change", () => {
      show(index, box.checked);
      saved[col] = box.checked;
      localStorage.setItem(STORE, JSON.stringify(saved));
    });
    label.append(box, " " + th.textContent.trim() + (th.classList.contains("config") ? " (config)" : ""));
    picks.append(label);
  });

  // Live cells: while a listed run or a demo stage is queued or running, its status, last
  // step and last metric values are read again every 2 s from the same read as the page
  // (runs/live.json), the demo's panel with them.
  const ACTIVE = new Set(["queued", "running"]);
  const showNumber = (v) => (typeof v === "number" ? (Number.isInteger(v) ? String(v) : String(Number(v.toFixed(4)))) : v);
  function setStatus(span, status) {
    span.textContent = status;
    span.className = `status status-${status}`;
  }
  function apply(data) {
    const byId = new Map(rows().map((row) => [Number(row.dataset.run), row]));
    data.runs.forEach((state) => {
      const row = byId.get(state.id);
      if (!row) return;
      row.dataset.status = state.status;
      const status = row.querySelector('[data-cell="status"]');
      status.dataset.sort = state.status;
      setStatus(status.querySelector(".status"), state.status);
      const step = row.querySelector('[data-cell="last_step"]');
      step.dataset.sort = state.last_step === null ? "" : String(state.last_step);
      step.textContent = state.last_step === null ? "–" : String(state.last_step);
      row.querySelectorAll('[data-cell="metric"]').forEach((cell, i) => {
        const v = state.metrics[i];
        const missing = v === "" || v === null || v === undefined;
        cell.dataset.sort = missing ? "" : String(v);
        cell.textContent = missing ? "–" : showNumber(v);
      });
    });
    const list = document.querySelector("#demo-status ul");
    if (list && data.demo) {  // the chain adds stages as it goes: the panel is drawn again
      list.replaceChildren(...data.demo.map((stage) => {
        const item = document.createElement("li");
        Object.assign(item.dataset, { stage: stage.stage, status: stage.status });
        const name = document.createElement("strong");
        name.textContent = stage.stage;
        const status = document.createElement("span");
        status.dataset.cell = "status";
        setStatus(status, stage.status);
        item.append(name, ": ", status);
        if (stage.detail) item.append(` — ${stage.detail}`);
        if (stage.url) {
          const open = document.createElement("a");
          open.href = stage.url;
          open.textContent = "open";
          item.append(" ", open);
        }
        return item;
      }));
    }
  }
  // a demo stage is over once it reached one of these; a run once it is not queued or running
  const OVER = new Set(["finished", "done", "failed", "skipped", "ready", "stopped", "deleted", "cancelled"]);
  const active = () => rows().some((row) => ACTIVE.has(row.dataset.status))
    || [...document.querySelectorAll("#demo-status li[data-stage]")].some((li) => !OVER.has(li.dataset.status));
  codeopt.pollRuns(table.dataset.liveUrl, () => rows().map((row) => row.dataset.run), active, apply);
})();
