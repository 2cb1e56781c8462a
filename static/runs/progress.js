// Run page: the progress section (the training's stage and estimate, the run's evaluations) is
// rendered by the server; while anything in it is queued or running, fetch it again every
// POLL_MS and swap it in, until nothing is left to wait for.
"use strict";
(() => {
  const POLL_MS = 2000;

  async function refresh() {
    const section = document.getElementById("run-progress");
    if (!section || section.dataset.active !== "1") return;
    try {
      const response = await fetch(section.dataset.url, { credentials: "same-origin" });
      if (response.ok) {
        const text = await response.text();
        if (text.trim() !== section.outerHTML.trim()) section.outerHTML = text;
      }
    } finally {
      const now = document.getElementById("run-progress");
      if (now && now.dataset.active === "1") setTimeout(refresh, POLL_MS);
    }
  }
  setTimeout(refresh, POLL_MS);
})();
