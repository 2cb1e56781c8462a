"""The GPU check script runs the real loop; here (no GPU) it refuses without --allow-cpu and
runs one step on the CPU with it."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
import torch

from scripts import gpu_train_steps
from training.smoke import run_smoke

ROOT = Path(__file__).resolve().parents[2]


def test_the_smoke_run_takes_real_steps_on_the_device_it_finds(tmp_path):
    result = run_smoke("tiny", 1, tmp_path, warm_start_steps=10)
    expected = "cuda" if torch.cuda.is_available() else "cpu"
    assert result["device"].startswith(expected) and result["steps"] == 1
    step = result["metrics"][1]  # the first update's, reported at step 1
    assert {"rewards/mean", "eval/p100", "time/step_s"} <= set(step)
    assert (tmp_path / "checkpoints" / "step-000001" / "state.pt").is_file()


def test_the_script_says_when_there_is_no_gpu(monkeypatch, capsys):
    if torch.cuda.is_available():
        pytest.skip("a CUDA device is visible: the script trains on it instead of refusing")
    done = subprocess.run(
        [sys.executable, "scripts/gpu_train_steps.py", "--steps", "1"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 1 and "no CUDA device visible" in done.stderr
    # --allow-cpu trains anyway: the script's main() here (torch is loaded already)
    argv = ["gpu_train_steps.py", "--steps", "1", "--allow-cpu", "--warm-start-steps", "10"]
    monkeypatch.setattr(sys, "argv", argv)
    assert gpu_train_steps.main() == 0
    summary = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert summary["device"] == "cpu" and summary["steps"] == 1 and summary["cuda"] is None
