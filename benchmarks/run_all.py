"""Run every benchmark in turn (each prints one JSON line); figures go to docs/benchmarks.md.

.venv/bin/python benchmarks/run_all.py
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
COMMANDS = [
    ["ingest_throughput.py", "--seconds", "30"],
    ["run_page_read.py"],
    ["live_latency.py"],
    ["live_worker_latency.py"],
]

if __name__ == "__main__":
    failed = 0
    for script, *args in COMMANDS:
        failed |= subprocess.run(
            [sys.executable, str(HERE / script), *args], cwd=HERE.parent
        ).returncode
    sys.exit(failed)
