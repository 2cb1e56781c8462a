// The Training page's table stays live: while a run on it is queued or running, its status,
// steps and stage are read again every POLL_MS from the runs list's live read (runs/live.json:
// the same figures as the run page and the runs list).
"use strict";

(() => {
  const table = document.getElementById("training-runs");
  if (!table) return;
  const POLL_MS = 2000;
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

  async function poll() {
    if (!rows().some((row) => ACTIVE.has(row.dataset.status))) return;
    const ids = rows().map((row) => row.dataset.run).join(",");
    try {
      const answer = await fetch(`${table.dataset.liveUrl}?ids=${ids}`, { headers: { Accept: "application/json" } });
      if (answer.ok) apply(await answer.json());
    } catch { /* the next poll tries again */ }
    setTimeout(poll, POLL_MS);
  }
  setTimeout(poll, POLL_MS);
})();
