"""Timing noise by mode on real references (PAPER.md s.2): a built problem's references
re-scored in wall, cpu and instructions modes, idle and beside a load the diagnostic starts
and stops itself; its result stored and charted on the Timing page beside the paper's."""

from __future__ import annotations

import json
from dataclasses import replace

import numpy as np
import psutil
import pytest
from django.core.management import CommandError, call_command
from django.test import Client

from execution.load import BUSY_LOOP, busy_load
from rewards.engine import ProblemRuntimes, RewardConfig
from rewards.runtimes import loaded_problems
from scoring.problems import scoring_problem
from scoring.scorer import ScoringProblem
from tests.conftest import wait_until
from timing import fidelity
from timing.mode_noise import (
    JitterSummary,
    ModeNoise,
    ModeNoiseCell,
    ModeNoiseSettings,
    NoiseProblem,
    jitter_summary,
    measure_mode_noise,
)
from timing.models import ModeNoiseCheck
from timing.services import do_record_mode_noise

pytestmark = pytest.mark.django_db

TINY = ModeNoiseSettings(
    remeasure=2,
    deterministic_remeasure=2,
    load_processes=1,
    ranking=RewardConfig(name="tiny", timing_repeats=1),
)
"""The fewest runs that still make a range (valgrind's Python start-up alone is ~4 s)."""
CANDIDATES = ("accepted/fast.py", "accepted/slow.py")
"""Two of the sum package's three references are re-scored (a timed scoring still ranks
them among all three, re-measured beside them)."""


def busy_children() -> list[int]:
    """This process's children running the load's busy loop."""
    found = []
    for child in psutil.Process().children(recursive=True):
        try:
            if BUSY_LOOP in " ".join(child.cmdline()):
                found.append(child.pid)
        except psutil.NoSuchProcess:
            continue
    return found


def on_a_small_test(scoring: ScoringProblem) -> ScoringProblem:
    """The built problem timed on its smallest generated correctness test instead of its
    optimization tests: the same programs, references and sandbox, runs of milliseconds
    (the slowest reference needs ~0.6 s a run on an optimization test, ~25 s under
    valgrind)."""
    case = min(
        (c for c in scoring.correctness if c.kind == "correctness"),
        key=lambda c: c.input_path.stat().st_size,
    )
    runtimes = ProblemRuntimes(
        np.ones((len(scoring.reference_programs), 1)),
        np.array([case.input_path.stat().st_size]),
        np.array([case.answer_path.stat().st_size]),
    )
    return replace(scoring, optimization=[case], runtimes=runtimes)


def test_jitter_summary_counts_programs_without_a_percentile_apart():
    summary = jitter_summary([0.0, 1.0, 2.0, None])
    assert summary == JitterSummary(programs=4, not_always_correct=1, p50=1.0, p95=1.9, max=2.0)
    assert jitter_summary([None]) == JitterSummary(1, 1, None, None, None)


def test_the_load_is_stopped_even_when_its_block_fails():
    with pytest.raises(RuntimeError), busy_load(2) as pids:
        # a process just started may not show its own command line yet (seen in CI: one of
        # the two found, the other a moment later)
        wait_until(lambda: sorted(busy_children()) == sorted(pids), 10, "both busy processes")
        raise RuntimeError("the measurement failed")
    assert busy_children() == [] and not any(psutil.pid_exists(pid) for pid in pids)


def test_rank_jitter_is_measured_per_mode_idle_and_beside_a_load_it_starts_and_stops(
    built, tmp_path
):
    (item,) = loaded_problems("", ["sum"])
    tmp_path.chmod(0o711)
    _, built_scoring = scoring_problem(item, tmp_path)
    scoring = on_a_small_test(built_scoring)
    programs = {name: scoring.reference_programs[name] for name in CANDIDATES}
    problem = NoiseProblem("sum", programs, scoring)
    seen: dict[str, list[int]] = {}

    def watch(done: int, total: int, label: str) -> None:
        seen[label] = busy_children()

    found = measure_mode_noise([problem], TINY, workdir=tmp_path, on_progress=watch)

    for mode in ("wall", "cpu", "instructions"):
        for condition in ("idle", "loaded"):
            cell = found.cell(mode, condition)
            assert cell.summary.programs == 2 and cell.summary.not_always_correct == 0
            assert cell.problems == 1 and cell.scorings == 2 and cell.seconds > 0
            assert set(cell.per_program["sum"]) == set(CANDIDATES)
    for condition in ("idle", "loaded"):  # counts, not times: the ranks cannot move
        assert found.cell("instructions", condition).summary.max == 0
    assert all(len(seen[f"loaded: {m}, sum"]) == 1 for m in ("wall", "cpu", "instructions"))
    assert all(seen[f"idle: {m}, sum"] == [] for m in ("wall", "cpu", "instructions"))
    assert busy_children() == []  # stopped when the loaded scorings ended
    data = found.as_dict()
    assert json.loads(json.dumps(data)) == data and data["load_processes"] == 1
    assert data["results"]["instructions"]["loaded"]["p95"] == 0


def test_noise_by_mode_stores_its_result_and_the_timing_page_charts_it(built, alice, monkeypatch):
    cheap = replace(TINY, modes=("cpu",), conditions=("idle",))
    monkeypatch.setattr(fidelity, "QUICK", cheap)
    result = fidelity.noise_by_mode(None, quick=True, store=True, scorings=3)
    assert result["problems"] == ["sum"] and result["quick"] is True
    assert result["remeasure"] == 3 and result["results"]["cpu"]["idle"]["scorings"] == 3
    assert json.loads(json.dumps(result)) == result
    row = ModeNoiseCheck.objects.get()
    assert result["id"] == row.pk and row.result["results"] == result["results"]

    client = Client()
    client.force_login(alice)
    page = client.get("/timing/").content.decode()
    assert 'id="chart-mode-noise"' in page and 'id="mode-noise-none"' not in page
    assert '<tr data-mode="cpu" data-condition="idle">' in page
    assert "busy training hosts ~41" in page and "isolated service ~2" in page


def test_the_timing_page_shows_each_mode_and_condition_beside_the_papers_figures(alice):
    def cell(mode: str, condition: str, p95: float) -> ModeNoiseCell:
        summary = JitterSummary(7, 0, p95 / 2, p95, p95 + 1)
        return ModeNoiseCell(mode, condition, summary, 1, 3, 30.0, {"big-sum": {}})

    stored = ModeNoise(
        cells=[
            cell("wall", "idle", 4.5), cell("wall", "loaded", 37.25),
            cell("cpu", "idle", 1.5), cell("cpu", "loaded", 3.0),
            cell("instructions", "idle", 0.0), cell("instructions", "loaded", 0.0),
        ],
        problems=["big-sum"], programs=7, remeasure=3, deterministic_remeasure=2,
        load_processes=2, ranking={}, seconds=360.0,
    ).as_dict()  # fmt: skip
    do_record_mode_noise(stored, hostname="host-a", quick=True)
    client = Client()
    client.force_login(alice)
    page = client.get("/timing/").content.decode()
    chart = json.loads(page.split('id="mode-noise-data" type="application/json">')[1].split("<")[0])
    assert [(p["label"], p["points"]) for p in chart["paper"]] == [
        ("busy training hosts", 41.0),
        ("isolated service", 2.0),
    ]
    rows = {(r["mode"], r["condition"]): r["p95"] for r in chart["result"]["rows"]}
    assert rows[("wall", "loaded")] == 37.25 and rows[("instructions", "idle")] == 0.0
    assert chart["result"]["modes"] == ["wall", "cpu", "instructions"]
    assert "on host-a (quick)" in page and "37.25" in page


def test_a_problem_that_is_not_built_is_refused_naming_it_and_nothing_is_stored(built):
    with pytest.raises(ValueError, match="^problems: nope: .*build_dataset"):
        fidelity.noise_by_mode(["nope"], quick=True, store=True)
    with pytest.raises(CommandError, match="^scorings: at least 2"):
        call_command("noise_by_mode", "--problems", "sum", "--scorings", "1")
    assert not ModeNoiseCheck.objects.exists()


def test_without_a_result_the_timing_page_says_which_command_produces_one(alice):
    client = Client()
    client.force_login(alice)
    page = client.get("/timing/").content.decode()
    assert 'id="mode-noise-none"' in page and "manage.py noise_by_mode --quick" in page
    assert 'id="chart-mode-noise"' not in page
