"""The training tests' problem and tiny policy (workers/training/smoke.py)."""

from __future__ import annotations

from workers.training.smoke import (  # noqa: F401  (re-exported for the tests)
    STATEMENT,
    sum_scoring_problem,
    sum_training_problem,
    warmed_tiny_policy,
)
