"""The `workers` app label's tables, defined where their domains are: the worker processes'
heartbeats (foundation/liveness.py), training's (training/models.py), timing's
(timing/models.py) and scoring's (scoring/models.py). The tables and their migrations
(workers/migrations) kept this label when the models moved to their domains, so no schema
changed; a new migration for any of them is still made here (`makemigrations workers`)."""

from __future__ import annotations

from foundation.liveness import WorkerHeartbeat  # noqa: F401
from scoring.models import HostCalibration, ScoringGather, ScoringJob, ScoringPart  # noqa: F401
from timing.models import ModeNoiseCheck, TimingJob  # noqa: F401
from training.models import RolloutSample, TrainingRun  # noqa: F401
