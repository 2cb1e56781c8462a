"""Scoring for any trainer (POST /api/scoring/): the same ScoringJob and timing-queue task
as our own trainer's steps (scoring/coordinator.py), owned by a user, scoped by its run."""
