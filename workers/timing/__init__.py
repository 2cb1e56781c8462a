"""Timing jobs: the execution engine (workers.execution) as a service, its pages' data, rank
checks."""
