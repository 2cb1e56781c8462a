// The Training page's table stays live: while a run on it is queued or running, its status,
// steps and stage are read again every 2 s from the runs list's live read (runs/live.json:
// the same figures as the run page and the runs list).
"use strict";

(() => {
  const table = document.getElementById("training-runs");
  if (!table) return;
  const ACTIVE = new Set(["queued", "running"]);
  const rows = () => [...table.tBodies[0].rows].filter((row) => row.dataset.run);
  const cell = (row, name) => row.querySelector(`[data-cell="${name}"]`);

  function apply(data) {
    const byId = new Map(rows().map((row) => [Number(row.dataset.run), row]));
    data.runs.forEach((state) => {
      const row = byId.get(state.id);
      if (!row || state.steps === null) return;
      row.dataset.status = state.status;
      const status = cell(row, "status").querySelector(".status");
      status.textContent = state.status;
      status.className = `status status-${state.status}`;
      cell(row, "steps").textContent = state.steps;
      cell(row, "stage").textContent = state.stage;
    });
  }

  const active = () => rows().some((row) => ACTIVE.has(row.dataset.status));
  codeopt.pollRuns(table.dataset.liveUrl, () => rows().map((row) => row.dataset.run), active, apply);
})();
