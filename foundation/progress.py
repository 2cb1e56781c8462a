"""Progress as pages say it: the time left at the rate so far, "about 3 min", or at the rate of
the recent past (`RecentRate`) where the rate changes under a job: a second job starting on a
2-core host halves a warm start's pace, and the rate since the start then promises "about 1
min" for many minutes."""

from __future__ import annotations

from collections import deque


def remaining_s(done: float, total: float, elapsed_s: float) -> float | None:
    """Seconds until `total` at the rate `done` took `elapsed_s`; None before any progress
    (no rate yet) or without a total."""
    if done <= 0 or total <= 0 or elapsed_s < 0:
        return None
    return max(0.0, elapsed_s * (total - done) / done)


def progress_text(stage: str, done: int, total: int, remaining: float | None) -> str:
    """A stage as pages say it: "warm start 120/300, about 2 min left"."""
    parts = [" ".join(p for p in (stage, f"{done}/{total}" if total else "") if p)]
    if remaining is not None:
        parts.append(f"{about(remaining)} left")
    return ", ".join(p for p in parts if p)


def about(seconds: float | None) -> str:
    """A page's estimate, "about 40 s", "about 3 min" or "about 1 h 20 min"; "" for None."""
    if seconds is None:
        return ""
    seconds = max(0, round(seconds))
    if seconds < 60:
        return f"about {max(seconds, 1)} s"
    minutes = round(seconds / 60)
    if minutes < 60:
        return f"about {minutes} min"
    hours, minutes = divmod(minutes, 60)
    return f"about {hours} h" + (f" {minutes} min" if minutes else "")


class RecentRate:
    """A count's rate over its last `window_s` seconds, for the time left at the pace it has
    now. Points older than the window go, but the newest one before it stays as the window's
    start. Until the points span `min_span_s` there is no recent rate (None)."""

    def __init__(self, window_s: float = 60.0, min_span_s: float = 10.0):
        self.window_s = window_s
        self.min_span_s = min_span_s
        self.points: deque[tuple[float, float]] = deque()

    def add(self, now: float, done: float) -> None:
        self.points.append((now, done))
        while len(self.points) > 2 and self.points[1][0] <= now - self.window_s:
            self.points.popleft()

    def remaining_s(self, total: float) -> float | None:
        """Seconds until `total` at the recent rate; None without one (too short a span, or
        no count in it)."""
        if len(self.points) < 2:
            return None
        (start, first), (end, last) = self.points[0], self.points[-1]
        if end - start < self.min_span_s or last <= first:
            return None
        return max(0.0, (total - last) * (end - start) / (last - first))
