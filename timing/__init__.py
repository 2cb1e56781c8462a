"""Timing jobs: the execution engine (execution) as a service, its pages' data, rank
checks."""
