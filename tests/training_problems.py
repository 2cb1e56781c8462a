"""The training tests' problem and tiny policy (training/smoke.py)."""

from __future__ import annotations

from training.smoke import (  # noqa: F401  (re-exported for the tests)
    STATEMENT,
    sum_scoring_problem,
    sum_training_problem,
    warmed_tiny_policy,
)
