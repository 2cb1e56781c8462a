"""What the tests of the training loop (training/loop.py) hand the Trainer: a sink
that keeps what it is sent, and the config of a short CPU run of the tiny policy."""

from __future__ import annotations

from training.config import TrainConfig


class MemorySink:
    """Metrics keyed by (step, key) like the ingest API (a re-sent step overwrites)."""

    def __init__(self, crash_at_step: int | None = None):
        self.metrics: dict[int, dict[str, float]] = {}
        self.logged: list[int] = []
        self.rows: dict[int, list] = {}
        self.crash_at_step = crash_at_step
        self.stop = False

    def log(self, step, metrics):
        if step == self.crash_at_step:
            raise RuntimeError("worker lost")
        self.metrics[step] = {**self.metrics.get(step, {}), **metrics}
        self.logged.append(step)

    def samples(self, step, rows):
        self.rows[step] = rows

    def should_stop(self):
        return self.stop


def tiny_run_config(**changes) -> TrainConfig:
    """Three steps of groups of 4 for the tiny policy on a CPU, with the learning rate and
    token budget the loop tests share; `changes` set what a test is about."""
    return TrainConfig(group_size=4, steps=3, learning_rate=1e-3, token_budget=256, **changes)
