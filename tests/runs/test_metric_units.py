"""One unit table for every metric key (runs/units.py): each key the trainer and the synthetic
replay log has a unit and stays inside its axis, and docs/metrics.md says what the table says."""

from __future__ import annotations

import copy
import json
import math
import random
import re
from concurrent.futures import Future
from pathlib import Path

import numpy as np
import pytest

from rewards.engine import ProblemRuntimes
from runs import units
from scoring.scorer import Score, ScoringProblem
from tests.support.trainer import MemorySink, tiny_run_config
from training.loop import Trainer, TrainingProblem
from training.rollout import make_prompt
from training.smoke import STATEMENT, warmed_tiny_policy
from workers.synthetic import synthetic_step

DOCS = Path(__file__).resolve().parents[2] / "docs" / "metrics.md"


class HandScorer:
    """The scorer at its protocol boundary: scores made by hand, every kind of outcome the
    real one gives (correct fast and slow, wrong, timed out, no program), with the timing
    noise of a re-measured group."""

    VERDICTS = ("OK", "OK", "WRONG_ANSWER", "TIME_LIMIT")

    def submit(self, step, batch):
        future = Future()
        groups = []
        for g, (_, samples) in enumerate(batch):
            group = []
            for i, _ in enumerate(samples):
                verdict = "FORMAT" if g == 1 and i == 0 else self.VERDICTS[i % 4]
                correct = verdict == "OK"
                group.append(
                    Score(
                        reward=(1.0 if i == 0 else -0.5) if correct else -1.0,
                        verdict=verdict,
                        correct=correct,
                        speed_percentile=(12.5 + 60 * i) if correct else None,
                        costs=[0.2] if correct else [None],
                        seconds=1.5,
                        tie_band=0.15,
                        rank_jitter=4.0 + g,
                        repeat_cv=0.03,
                        sandbox_errors=g,
                    )
                )
            groups.append(group)
        future.set_result(groups)
        return future


def no_problem(slug: str) -> TrainingProblem:
    runtimes = ProblemRuntimes(np.array([[0.1], [0.3]]), np.array([10]), np.array([2]))
    return TrainingProblem(slug, make_prompt(STATEMENT), ScoringProblem(slug, runtimes, [], []))


@pytest.fixture(scope="module")
def trainer_metrics(tmp_path_factory) -> dict[int, dict[str, float]]:
    """Every metric of 3 steps of the real loop (tiny policy, KL on, two groups a step)."""
    model, tokenizer = copy.deepcopy(warmed_tiny_policy(steps=5))
    config = tiny_run_config(prompts_per_step=2, max_new_tokens=24, checkpoint_every=3, kl_beta=0.1)
    sink = MemorySink()
    problems = [no_problem("a"), no_problem("b")]
    folder = tmp_path_factory.mktemp("checkpoints")
    Trainer(config, model, tokenizer, problems, HandScorer(), sink, folder).run()
    return sink.metrics


def synthetic_metrics() -> list[dict[str, float]]:
    return [
        synthetic_step(step, 300, random.Random(seed)) for seed in range(3) for step in range(300)
    ]


def assert_on_their_axes(steps: list[dict[str, float]]) -> None:
    for metrics in steps:
        for key, value in metrics.items():
            unit = units.unit_of(key)
            assert unit is not None, f"{key}: no unit in runs/units.py"
            if not math.isfinite(value):
                continue  # drawn as a marker, never on the axis
            assert unit.low is None or value >= unit.low, (key, value, unit)
            assert unit.high is None or value <= unit.high, (key, value, unit)


def test_every_key_the_trainer_logs_has_a_unit_and_stays_on_its_axis(trainer_metrics):
    assert sorted(trainer_metrics) == [1, 2, 3]
    keys = {key for metrics in trainer_metrics.values() for key in metrics}
    # the timing noise of the step's scoring is among them
    assert {"timing/rank_jitter", "timing/repeat_cv", "sandbox/errors"} <= keys
    assert {"losses/kl", "staleness/age_1", "sandbox/verdict_format"} <= keys
    assert_on_their_axes(list(trainer_metrics.values()))


def test_every_key_the_synthetic_replay_logs_has_a_unit_and_stays_on_its_axis():
    assert_on_their_axes(synthetic_metrics())


def test_the_keys_are_labelled_with_their_own_unit():
    label = lambda key: units.metric_unit(key).label  # noqa: E731
    assert label("timing/scoring_latency_s") == "seconds"  # not "percentile points"
    assert label("time/step_s") == "seconds"
    assert label("timing/rank_jitter") == "percentile points"
    assert label("eval/p50") == "fraction of samples"
    assert label("eval/speed_percentile") == "percentile points"  # not a pass rate
    assert label("losses/entropy") == "nats per token" and label("losses/kl") == "loss"
    assert label("sandbox/errors") == "failed sandbox starts"  # a count, not a verdict rate
    for key in ("groups/mixed", "sandbox/verdict_ok", "eval/p100", "time/overhead_share"):
        unit = units.unit_of(key)
        assert (unit.low, unit.high, unit.fixed) == (0.0, 1.0, True), key
    assert units.metric_unit("my/own_key") is None


def test_a_pattern_fills_its_star_with_any_text_and_the_first_entry_wins():
    assert units.matches("sandbox/verdict_*", "sandbox/verdict_ok")
    assert units.matches("*_s", "time/step_s") and not units.matches("*_s", "time/steps")
    assert not units.matches("eval/p*", "evaluation/p1")
    assert units.metric_unit("staleness/age_2").pattern == "staleness/age_*"  # not staleness/*


def test_the_page_reads_the_table_as_json():
    from runs.templatetags.metric_units import metric_units_json

    element = str(metric_units_json())
    assert element.startswith('<script id="metric-units" type="application/json">')
    body = json.loads(element.split(">", 1)[1].rsplit("<", 1)[0])
    assert body == units.table()
    assert body["metrics"][0] == {"pattern": "rewards/*", "unit": "reward", "label": "reward"}


def documented_rows() -> list[tuple[list[str], str, str]]:
    """(keys, unit, axis) of each row of docs/metrics.md's "Metric keys" table."""
    text = DOCS.read_text()
    section = text.split("## Metric keys", 1)[1].split("\n## ", 1)[0]
    rows = []
    for line in section.splitlines():
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if len(cells) == 4 and cells[0].startswith("`"):
            rows.append((re.findall(r"`([^`]+)`", cells[0]), cells[1], cells[2]))
    return rows


def test_the_docs_give_each_key_the_unit_and_axis_of_the_table():
    rows = documented_rows()
    assert len(rows) >= 20
    matched = set()
    for keys, unit, axis in rows:
        for key in keys:
            entry = units.metric_unit(key)
            assert entry is not None, f"docs/metrics.md: {key} has no unit in runs/units.py"
            assert (entry.label, units.UNITS[entry.unit].axis()) == (unit, axis), key
            matched.add(entry.pattern)
    missing = {entry.pattern for entry in units.METRIC_UNITS} - matched
    assert not missing, f"entries of runs/units.py that docs/metrics.md does not list: {missing}"


def test_the_docs_list_every_key_the_trainer_and_the_synthetic_replay_log(trainer_metrics):
    documented = {key for keys, _, _ in documented_rows() for key in keys}
    logged = {key for step in [*trainer_metrics.values(), *synthetic_metrics()] for key in step}
    patterns = {units.metric_unit(key).pattern for key in logged}
    undocumented = {
        p for p in patterns if not any(units.metric_unit(d).pattern == p for d in documented)
    }
    assert not undocumented
