"""The simulator on stored runtimes: what it loads from ReferenceRuntime rows, the
simulate_rewards command, built and imported problems, and the page with a real worker."""

from __future__ import annotations

import gzip
import json
import math
from datetime import timedelta
from pathlib import Path

import numpy as np
import pytest
from django.core.management import call_command
from django.utils import timezone

from problems.models import (
    Calibration,
    Problem,
    ProblemTest,
    ReferenceRuntime,
    ReferenceSolution,
)
from problems.services import do_import_code_contests
from rewards import engine, runtimes, services
from rewards.models import Simulation
from tests.conftest import wait_for_status
from tests.problems.test_dataset_build import import_sum, run_build

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "code_contests"
INF = math.inf


def stored_problem(
    slug: str,
    runs: dict[str, list],
    *,
    purpose: str = "build",
    labels: dict[str, str] | None = None,
    sizes: tuple[tuple[int, int], ...] = ((100, 10), (5000, 20)),
) -> Problem:
    """A problem whose references have stored runtimes: runs[reference][test] is seconds,
    "TLE" (timed out), "WA" (failed) or None (not measured)."""
    problem = Problem.objects.create(slug=slug, title=slug)
    kind = "optimization" if purpose == "build" else "correctness"
    tests = [
        ProblemTest.objects.create(
            problem=problem,
            name=f"t{i}",
            kind=kind,
            input_gz=gzip.compress(b"1" * chars_in),
            answer_gz=gzip.compress(b"2" * chars_out),
            input_bytes=chars_in,
            answer_bytes=chars_out,
        )
        for i, (chars_in, chars_out) in enumerate(sizes)
    ]
    measured_at = timezone.now() - timedelta(days=1)
    for name, values in runs.items():
        solution = ReferenceSolution.objects.create(
            problem=problem,
            name=name,
            language="python",
            code="",
            verdict_label=(labels or {}).get(name, "accepted"),
        )
        for test, value in zip(tests, values, strict=True):
            if value is None:
                continue
            verdict = {"TLE": "TIME_LIMIT", "WA": "WRONG_ANSWER"}.get(value, "OK")
            ReferenceRuntime.objects.create(
                solution=solution,
                test=test,
                mode="cpu",
                verdict=verdict,
                cost=value if verdict == "OK" else None,
                measured_at=measured_at,
                machine="m",
                purpose=purpose,
            )
    return problem


def spread(slug: str, references: int = 8, factor: float = 1.4) -> Problem:
    """References `factor` apart in speed on both tests."""
    return stored_problem(
        slug, {f"r{k}": [0.01 * factor**k, 0.02 * factor**k] for k in range(references)}
    )


@pytest.mark.django_db
def test_stored_runtimes_become_simulator_input():
    stored_problem(
        "built",
        {
            "a": [1.0, 10.0],
            "b": [2.0, 20.0],
            "c": [4.0, "TLE"],
            "d": ["WA", 5.0],
            "slow": [8.0, 40.0],
            "off": [0.1, 0.1],
        },
        labels={"slow": "too_slow", "off": "wrong"},
    )
    stored_problem("imported", {"a": [0.5, 0.7], "b": [0.6, 0.9]}, purpose="verify")
    stored_problem("lonely", {"a": [1.0, 1.0]})
    Problem.objects.create(slug="unbuilt", title="unbuilt")
    loaded, skipped = runtimes.load_problem_runtimes()
    assert skipped == [
        ("lonely", "1 reference with stored runtimes; 2 needed"),
        ("unbuilt", "no stored runtimes (not built yet)"),
    ]
    built, imported = loaded
    assert (built.slug, built.test_kind, built.tests) == ("built", "optimization", ["t0", "t1"])
    # the wrong-labelled reference is not a reference; a failed run is missing (nan)
    assert built.references == ["a", "b", "c", "d", "slow"]
    np.testing.assert_array_equal(
        built.runtimes.reference_costs,
        [[1, 10], [2, 20], [4, INF], [np.nan, 5], [8, 40]],
    )
    assert list(built.runtimes.input_chars) == [100, 5000]
    assert list(built.runtimes.output_chars) == [10, 20]
    assert (imported.test_kind, imported.references) == ("own", ["a", "b"])
    Problem.objects.filter(slug="built").update(split="train")
    train, _ = runtimes.load_problem_runtimes(split="train")
    assert [p.slug for p in train] == ["built"]
    with pytest.raises(ValueError, match="split: 'dev' is not one of train, test"):
        services.check_simulation_request(configs=[engine.RewardConfig("x")], split="dev")
    # a drift fit made after the runtimes were stored maps them to today's scale
    Calibration.objects.create(mode="cpu", machine="m", slope=2.0, intercept=0.5, pairs=9)
    (built, _), _ = runtimes.load_problem_runtimes(["built", "imported"])
    assert built.runtimes.reference_costs[0].tolist() == [2.5, 20.5]
    assert built.runtimes.reference_costs[2, 1] == INF


@pytest.mark.django_db
def test_simulate_rewards_prints_one_json_object_per_configuration(tmp_path, capsys):
    for index in range(6):
        spread(f"p{index}", references=8 + index)
    configs = tmp_path / "configs.yaml"
    configs.write_text(
        "- name: binary-top50\n  speed_bar: 50\n- name: control-bar100\n  speed_bar: 100\n"
    )
    call_command("simulate_rewards", "--configs", str(configs), "--noise-cv", "0,0.2", "--json")
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    by_name = {line["name"]: line for line in lines}
    assert list(by_name) == ["binary-top50", "control-bar100"]
    binary, control = by_name["binary-top50"], by_name["control-bar100"]
    for key in ("monotonicity", "signal_density", "all_negative_rate"):
        assert set(binary[key]) == {"0", "0.2"}
    assert binary["monotonicity"]["0"] > 0.8 and binary["signal_density"]["0"] == 1.0
    assert not binary["flagged"]
    assert control["flagged"] and control["flags"] == ["flat"]
    assert control["signal_density"] == {"0": 0.0, "0.2": 0.0}
    simulation = Simulation.objects.get()
    assert simulation.status == "done" and simulation.started_by == "cli"
    assert len(simulation.problems_used) == 6
    # the table form names the metrics and flags
    call_command("simulate_rewards", "--configs", str(configs))
    out = capsys.readouterr().out
    assert "monotonicity" in out and "control-bar100" in out and "flat" in out


@pytest.mark.django_db
@pytest.mark.parametrize(
    "arguments, message",
    [
        (["--noise-cv", "0,abc"], "noise_cv: 'abc' is not a number"),
        (["--noise-cv", "-0.1"], "noise_cv: -0.1 must be between 0 and 5"),
        (["--group-size", "0"], "group_size: must be between 1 and 1024"),
        (["--group-size", "many"], "group_size: 'many' is not a whole number"),
        (["--problems", "nope"], "problems: no problem nope"),
    ],
)
def test_a_bad_argument_is_named(arguments, message):
    spread("p0")
    with pytest.raises(Exception, match=message):
        call_command("simulate_rewards", *arguments)
    assert not Simulation.objects.exists()


@pytest.mark.django_db
def test_without_stored_runtimes_the_simulation_fails_and_says_why():
    Problem.objects.create(slug="bare", title="bare")
    with pytest.raises(Exception, match="problems: none has stored runtimes"):
        call_command("simulate_rewards")
    simulation = Simulation.objects.get()
    assert simulation.status == "failed" and "run a dataset build first" in simulation.error


@pytest.mark.django_db(transaction=True)
def test_the_simulator_runs_on_a_built_problem_and_on_imported_ones(tmp_path):
    import_sum(tmp_path)
    do_import_code_contests(FIXTURES / "records.json")
    build = run_build([])  # sum is built; the imported problems stop without generators
    assert build.status == "done"
    configs = [engine.RewardConfig("binary-top50", speed_bar=50)]
    request = services.check_simulation_request(configs=configs, noise_cvs="0,0.05")
    simulation = services.do_create_simulation(**request, queue=False)
    simulation = services.do_run_simulation(simulation.pk)
    used = {slug: (refs, tests, kind) for slug, refs, tests, kind in simulation.problems_used}
    assert used["sum"] == (3, 1, "optimization")  # fast, middle, slow on the optimization test
    imported = {slug: row for slug, row in used.items() if slug != "sum"}
    assert len(imported) == 2 and {kind for _, _, kind in imported.values()} == {"own"}
    result = simulation.results[0]
    assert [level["noise_cv"] for level in result["by_noise"]] == [0, 0.05]


@pytest.mark.django_db(transaction=True)
def test_a_simulation_queued_from_the_page_runs_on_a_real_worker(
    client, alice, celery_worker_process
):
    for index in range(4):
        spread(f"p{index}")
    services.do_load_configs()
    client.force_login(alice)
    bad = client.post(
        "/rewards/",
        {"form": "simulate", "configs": ["binary-top30"], "noise_cvs": "0", "group_size": "x"},
    )
    assert (
        bad.status_code == 400 and b"group_size: &#x27;x&#x27; is not a whole number" in bad.content
    )
    response = client.post(
        "/rewards/",
        {
            "form": "simulate",
            "configs": ["binary-top30", "control-bar100"],
            "noise_cvs": "0, 0.1",
            "group_size": "8",
            "problems": "p0 p1 p2",
        },
    )
    assert response.status_code == 302
    simulation = Simulation.objects.get()

    wait_for_status(
        celery_worker_process, simulation, ("done", "failed"), 120, "the simulation to end"
    )
    assert simulation.status == "done", simulation.error
    assert simulation.progress == 1.0 and simulation.started_by == "alice"
    assert [p[0] for p in simulation.problems_used] == ["p0", "p1", "p2"]
    rows = client.get("/rewards/simulations.json").json()["simulations"]
    assert rows[0]["id"] == simulation.pk and rows[0]["problems"] == 3
    page = client.get("/rewards/").content.decode()
    assert 'id="simulation-data"' in page and f"simulation #{simulation.pk}" in page
    assert 'data-name="control-bar100" data-verdict="discard"' in page
    assert 'data-name="binary-top30" data-verdict="worth"' in page
