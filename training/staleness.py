"""The staleness filter (paper, section 4): scoring is asynchronous, so a rollout may reach
the update several policy versions after it was sampled; one too old is dropped."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Protocol, TypeVar


class Versioned(Protocol):
    policy_version: int


R = TypeVar("R", bound=Versioned)


@dataclass
class StalenessReport:
    kept: int = 0
    dropped: int = 0
    histogram: Counter = field(default_factory=Counter)  # staleness (steps) -> rollouts

    def metrics(self) -> dict[str, float]:
        """Dropped count, mean and max staleness, and the histogram as `staleness/age_<k>`
        (the share of the step's rollouts sampled k versions back)."""
        ages = list(self.histogram.elements())
        metrics = {
            "staleness/dropped": float(self.dropped),
            "staleness/mean": sum(ages) / len(ages) if ages else 0.0,
            "staleness/max": float(max(ages, default=0)),
        }
        for age, count in sorted(self.histogram.items()):
            metrics[f"staleness/age_{age}"] = count / len(ages)
        return metrics


def filter_stale(
    rollouts: Iterable[R], current_version: int, max_staleness_steps: int
) -> tuple[list[R], StalenessReport]:
    """The rollouts at most `max_staleness_steps` versions behind `current_version`, and a
    report of every rollout's staleness (dropped ones included)."""
    kept: list[R] = []
    report = StalenessReport()
    for rollout in rollouts:
        staleness = current_version - rollout.policy_version
        if staleness < 0:
            raise ValueError(
                f"policy_version: {rollout.policy_version} is ahead of the policy "
                f"({current_version})"
            )
        report.histogram[staleness] += 1
        if staleness > max_staleness_steps:
            report.dropped += 1
        else:
            kept.append(rollout)
            report.kept += 1
    return kept, report
