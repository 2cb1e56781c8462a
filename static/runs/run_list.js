// The run list's table: sort by any column (click its header; again to reverse) and pick
// the columns shown (config columns from each run's stored config among them; the choice is
// kept in this browser). Client-side: the page holds at most 200 runs.
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
})();
