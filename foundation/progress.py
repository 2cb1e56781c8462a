"""Progress as pages say it: the time left at the rate so far, "about 3 min"."""

from __future__ import annotations


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
