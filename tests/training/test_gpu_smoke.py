"""The GPU check script runs the real loop and reports the figures docs/benchmarks.md records
(tokens sampled per second, seconds per step, peak memory) per dtype; here (no GPU) it refuses
without --allow-cpu and runs on the CPU with it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import torch

from lm.base_models import prompt_style
from scripts import gpu_train_steps
from training.smoke import run_smoke, sum_training_problems

ROOT = Path(__file__).resolve().parents[2]
MODEL = "smollm2-135m-instruct"
CACHE = Path(os.environ.get("CODEOPT_MODEL_CACHE") or ROOT / "var" / "models")


def test_the_smoke_run_takes_real_steps_on_the_device_it_finds(tmp_path):
    result = run_smoke("tiny", 1, tmp_path, warm_start_steps=10)
    expected = "cuda" if torch.cuda.is_available() else "cpu"
    assert result["device"].startswith(expected) and result["steps"] == 1
    step = result["metrics"][1]  # the first update's, reported at step 1
    assert {"rewards/mean", "eval/p100", "time/step_s"} <= set(step)
    assert (tmp_path / "checkpoints" / "step-000001" / "state.pt").is_file()
    # the speed figures come from the steps that ran
    assert result["tokens_sampled"] == round(step["completions/length_mean"] * 8)
    assert result["tokens_per_s"] == pytest.approx(
        result["tokens_sampled"] / step["time/generate_s"], rel=0.01
    )
    assert result["step_s"] == [round(step["time/step_s"], 2)] and result["peak_memory_mib"] > 0
    assert result["step_s_mean"] == result["step_s"][0]
    assert result["updates_skipped"] == step["losses/skipped"]


def test_the_named_model_trains_from_its_cache_through_its_chat_format(tmp_path):
    # posed as functions (the demo's form) through the chat template, each with its harness
    problems = sum_training_problems(tmp_path / "p", 2, prompt_style(MODEL), as_function=True)
    assert "`total(nums)`" in problems[0].prompt and "`sum_of_list(values)`" in problems[1].prompt
    assert all(p.prompt.startswith("<|im_start|>") for p in problems)
    assert "print(total(" in problems[0].harness
    result = run_smoke(
        MODEL,
        1,
        tmp_path,
        cache_root=CACHE,
        prompts=2,
        group_size=2,
        max_new_tokens=12,
        trainable_layers=1,
    )
    assert result["steps"] == 1 and result["prompts"] == 2 and result["model"] == MODEL
    assert result["metrics"][1]["completions/length_max"] <= 12
    assert result["tokens_sampled"] > 0


def test_the_script_says_when_there_is_no_gpu_and_measures_each_dtype_on_the_cpu(capsys):
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
    argv = ["--model", "tiny", "--steps", "2", "--allow-cpu", "--warm-start-steps", "10"]
    assert gpu_train_steps.main([*argv, "--dtypes", "float32", "bfloat16"]) == 0
    out = capsys.readouterr().out.strip().splitlines()
    summary = json.loads(out[-1])
    assert summary["device"] == "cpu" and summary["cuda"] is None and summary["prompts"] == 2
    runs = summary["runs"]
    assert [r["dtype"] for r in runs] == ["float32", "bfloat16"]
    for run in runs:
        assert run["steps"] == 2 and len(run["step_s"]) == 2 and run["tokens_per_s"] > 0
        assert run["peak_memory_of"] == "process peak resident" and run["peak_memory_mib"] > 0
    assert any(line.startswith("bfloat16 ") for line in out)


def test_the_script_refuses_a_group_of_one(capsys):
    with pytest.raises(SystemExit):
        gpu_train_steps.main(["--group-size", "1"])
    assert "--group-size: at least 2" in capsys.readouterr().err


def test_a_model_that_is_not_there_is_named_in_one_line(tmp_path, capsys):
    argv = ["--model", str(tmp_path / "nothing"), "--allow-cpu", "--dtypes", "float32"]
    assert gpu_train_steps.main(argv) == 2
    assert "error: model: " in capsys.readouterr().err
    with pytest.raises(SystemExit):
        gpu_train_steps.main(["--trainable-layers", "-1"])
    assert "--trainable-layers: 0 (every parameter) or more" in capsys.readouterr().err
