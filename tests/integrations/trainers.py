"""The trainers' own virtualenv (Makefile: var/trainers, verl and OpenRLHF) and running a
script of this folder in it, as the trainer's process would run."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest
from django.conf import settings

from lm.base_models import prepared_folder

ROOT = Path(__file__).resolve().parents[2]
PYTHON = ROOT / "var" / "trainers" / "bin" / "python"


def tokenizer_folder() -> str:
    """The named base model's folder (its tokenizer): converted once by `make install`."""
    return str(prepared_folder("smollm2-135m-instruct", settings.CODEOPT_MODEL_CACHE))


def run_in_trainers_venv(script: str, args: list[str], *, env: dict | None = None,
                         timeout: float = 600) -> dict:  # fmt: skip
    """Run tests/integrations/<script> with the trainers' Python; its last line of output
    is a JSON object."""
    if not PYTHON.exists():
        pytest.fail(f"{PYTHON} is missing: `make trainers` builds the trainers' virtualenv")
    clean = {k: v for k, v in os.environ.items() if not k.startswith(("DJANGO", "PYTEST"))}
    done = subprocess.run(
        [str(PYTHON), str(ROOT / "tests" / "integrations" / script), *args],
        cwd=ROOT,
        env={**clean, "PYTHONPATH": str(ROOT), "OMP_NUM_THREADS": "1", **(env or {})},
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    assert done.returncode == 0, done.stderr[-4000:]
    return json.loads(done.stdout.strip().splitlines()[-1])
