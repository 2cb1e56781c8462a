"""The worker process: heartbeats, core pinning, health checks."""
