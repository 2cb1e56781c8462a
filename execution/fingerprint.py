"""Which machine measured a runtime: the facts that change a program's speed, and a short
hash of them (stored beside every reference runtime, so drift can be traced to its cause)."""

from __future__ import annotations

import functools
import hashlib
import json
import os
import platform
import subprocess


def _cpu_model() -> str:
    try:
        with open("/proc/cpuinfo") as handle:
            for line in handle:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def _version(argv: list[str]) -> str:
    try:
        out = subprocess.run(argv, capture_output=True, text=True, timeout=10).stdout
    except (OSError, subprocess.TimeoutExpired):
        return "missing"
    return out.splitlines()[0].strip() if out else "unknown"


@functools.cache
def machine_facts() -> dict[str, str]:
    return {
        "host": platform.node(),
        "cpu": _cpu_model(),
        "cpus": str(os.cpu_count()),
        "kernel": platform.release(),
        "python": _version(["/usr/bin/python3", "--version"]),
        "g++": _version(["/usr/bin/g++", "--version"]),
    }


def machine_fingerprint() -> str:
    facts = json.dumps(machine_facts(), sort_keys=True).encode()
    return hashlib.sha256(facts).hexdigest()[:12]
