"""Evaluations in the product: an upload with malformed lines is reported by line and the
rest evaluated; the command prints the figures stored and a win rate; a run's checkpoints
are evaluated against its starting point; bad requests are named before anything is
written; a real worker runs a queued evaluation."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from evaluations import metrics, services
from evaluations.models import Evaluation
from execution.samples import FAST, SLOW
from foundation.tenancy import Team
from tests.conftest import wait_for_status
from tests.training.test_training_runs import start_run
from training.services import do_run_training

pytestmark = pytest.mark.django_db(transaction=True)


def lines(*rows) -> str:
    return "\n".join(r if isinstance(r, str) else json.dumps(r) for r in rows) + "\n"


UPLOAD = lines(
    {"problem": "sum", "program": FAST},
    {"problem": "sum", "program": FAST, "sample_index": 5},
    "{not json",
    {"problem": "nope", "program": FAST},
    {"problem": "sum"},
    {"problem": "sum", "program": SLOW, "sample_index": 5},
    {"problem": "sum", "program": SLOW},
    {"problem": "sum", "program": "print(0)\n", "sample_index": -1},
    {"problem": "sum", "program": "print(0)\n"},
)


def evaluate_upload(user, text: str, **fields) -> Evaluation:
    request = services.check_evaluation_request(
        user, {"source": "completions", "split": "all", **fields}, ("up.jsonl", text)
    )
    evaluation = services.do_create_evaluation(
        user, Team.objects.get(name="red"), request, queue=False
    )
    assert services.do_run_evaluation(evaluation.pk) == "done"
    evaluation.refresh_from_db()
    return evaluation


def slow_and_mixed(user) -> tuple[Evaluation, Evaluation]:
    """Two done evaluations of "sum" without complexity: two SLOW programs (p100 = 1), and
    one FAST and one wrong program (p100 = 0.5), the second asking for τ = 20 too."""
    slow = evaluate_upload(
        user, lines(*[{"problem": "sum", "program": SLOW}] * 2), complexity=False
    )
    mixed = evaluate_upload(
        user,
        lines({"problem": "sum", "program": FAST}, {"problem": "sum", "program": "print(0)"}),
        complexity=False,
        taus="20",
    )
    return slow, mixed


def test_an_upload_reports_malformed_lines_and_evaluates_the_rest(built, alice):
    evaluation = evaluate_upload(alice, UPLOAD)
    assert evaluation.input_errors == [
        {"line": 3, "error": "not JSON (Expecting property name enclosed in double quotes)"},
        {"line": 4, "error": "problem: 'nope' is not among the problems with stored runtimes"},
        {"line": 5, "error": "program: missing or not a string"},
        {"line": 6, "error": "sample_index: 5 repeats for 'sum'"},
        {"line": 8, "error": "sample_index: not an integer >= 0"},
    ]
    samples = list(evaluation.samples.order_by("index"))
    assert [(s.index, s.verdict) for s in samples] == [
        (0, "OK"),
        (5, "OK"),
        (6, "OK"),  # numbered after the highest index given so far
        (7, "WRONG_ANSWER"),
    ]
    assert evaluation.n == 4 and evaluation.problem_slugs == ["sum"]
    results = evaluation.results
    assert results["n_problems"] == 1
    p = {tau: results["p_tau"][tau] for tau in ("100", "50", "30", "10")}
    # one problem: no spread between problems, so no interval (not a zero-width one)
    assert p["100"] == {"value": 0.75, "low": None, "high": None}
    assert p["10"]["value"] <= p["30"]["value"] <= p["50"]["value"] <= p["100"]["value"]
    slow_cost, fast_cost = samples[2].cost_s, min(samples[0].cost_s, samples[1].cost_s)
    assert slow_cost > 3 * fast_cost  # SLOW adds each number 20 times
    complexity = results["per_problem"]["sum"]["complexity"]
    assert complexity["sample_index"] in (0, 5)  # the fastest correct sample
    assert len(complexity["scaling"]["sizes"]) == 4
    assert set(complexity["reference_exponents"]) == {
        "accepted/fast.py",
        "accepted/middle.py",
        "accepted/slow.py",
    }
    assert complexity["sample_exponent"] is not None
    # the references are fitted, so the problem counts for both shares
    assert results["complexity_improved"]["problems"] == 1
    assert results["fastest_human_complexity_improved"]["problems"] == 1


def test_the_command_prints_the_stored_figures_and_a_win_rate(built, alice, tmp_path, capsys):
    slow = tmp_path / "slow.jsonl"
    slow.write_text(lines({"problem": "sum", "program": SLOW}))
    fast = tmp_path / "fast.jsonl"
    fast.write_text(lines({"problem": "sum", "program": FAST}))
    common = ["--user", "alice", "--split", "all", "--no-complexity", "--json"]
    call_command("evaluate", "--completions", str(slow), *common)
    baseline = json.loads(capsys.readouterr().out)
    call_command(
        "evaluate", "--completions", str(fast), *common, "--against", str(baseline["evaluation"])
    )
    printed = json.loads(capsys.readouterr().out)
    stored = Evaluation.objects.get(pk=printed["evaluation"]).results
    for key in ("p100", "p50", "p30", "p10"):
        assert printed[key] == stored["p_tau"][key[1:]]["value"]
    assert printed["p100"] == 1.0 and printed["n_problems"] == 1
    assert printed["beats_fastest_human"] in (0.0, 1.0)
    assert printed["complexity_improved"] is None  # not measured
    win = printed["win_rate"]
    assert (win["rate"], win["wins"], win["compared"]) == (1.0, 1, 1)
    with pytest.raises(CommandError, match="step: only with --run"):
        call_command("evaluate", "--completions", str(fast), *common, "--step", "3")
    with pytest.raises(CommandError, match="against: no evaluation 999"):
        call_command("evaluate", "--completions", str(fast), *common, "--against", "999")


def test_a_runs_checkpoints_are_evaluated_against_its_starting_point(built, alice):
    run = start_run(alice, steps=2)
    assert do_run_training(run.pk) == "finished"
    done = []
    for step in (0, None):  # the starting point, then the latest
        request = services.check_evaluation_request(
            alice,
            {
                "source": "run",
                "run": run.pk,
                "step": step,
                "split": "all",
                "n": 3,
                "complexity": False,
                "max_new_tokens": 48,
            },
        )
        evaluation = services.do_create_evaluation(alice, run.team, request, queue=False)
        assert services.do_run_evaluation(evaluation.pk) == "done"
        evaluation.refresh_from_db()
        done.append(evaluation)
    start, latest = done
    assert (start.step, latest.step) == (0, 2)
    assert start.name == "r step 0" and latest.source == "run"
    for evaluation in done:
        assert evaluation.samples.count() == 3 and evaluation.progress_done == 6
        assert evaluation.results["n_problems"] == 1
    from evaluations.reads import comparison

    table = comparison([latest, start])
    assert [row["evaluation"] for row in table["rows"]] == [latest.pk, start.pk]
    duel = table["win_rates"]["matrix"][0][1]
    assert duel["compared"] + duel["neither"] == 1  # the one problem, compared or left out
    assert table["win_rates"]["matrix"][1][0]["compared"] == duel["compared"]
    # a checkpoint the run replaced before the evaluation ran: the failure says so
    request = services.check_evaluation_request(
        alice, {"source": "run", "run": run.pk, "step": 1, "split": "all", "complexity": False}
    )
    evaluation = services.do_create_evaluation(alice, run.team, request, queue=False)
    shutil.rmtree(Path(run.training.checkpoint_dir) / "step-000001")
    with pytest.raises(ValueError):
        services.do_run_evaluation(evaluation.pk)
    evaluation.refresh_from_db()
    assert evaluation.status == "failed" and evaluation.error == (
        f"ValueError: step: run {run.pk} no longer has its checkpoint at step 1 (it keeps 0, 2)"
    )
    with pytest.raises(
        ValueError, match=r"step: run \d+ has no checkpoint at step 7 \(it has 0, 2\)"
    ):
        services.check_evaluation_request(
            alice, {"source": "run", "run": run.pk, "step": 7, "split": "all"}
        )


@pytest.mark.parametrize(
    "fields, upload, message",
    [
        ({"source": "magic"}, None, "source: 'magic' is not one of run, model, completions"),
        ({"source": "model", "n": 0}, None, "n: must be in [1, 200], not 0"),
        ({"source": "model", "n": "many"}, None, "n: 'many' is not a whole number"),
        ({"source": "model", "temperature": 0}, None, "temperature: must be in [0.01, 5], not 0"),
        ({"source": "model", "taus": "50 200"}, None, "taus: '200' is not in (0, 100]"),
        (
            {"source": "model", "model": "/nowhere"},
            None,
            "model: must be 'tiny', 'smollm2-135m-instruct' or a path",
        ),
        ({"source": "model", "split": "test", "problems": "sum"}, None, "problems: sum not"),
        ({"source": "run"}, None, "run: choose a training run"),
        ({"source": "run", "run": 12345}, None, "run: no training run 12345 you can see"),
        ({"source": "completions"}, None, "completions: upload a JSON-lines file"),
        (
            {"source": "completions"},
            ("x.jsonl", "{}\n"),
            "completions: no valid line in x.jsonl; line 1",
        ),
    ],
)
def test_a_bad_request_is_named_before_anything_is_written(built, alice, fields, upload, message):
    with pytest.raises(ValueError) as error:
        services.check_evaluation_request(alice, {"split": "all", **fields}, upload)
    assert str(error.value).startswith(message)
    assert not Evaluation.objects.exists()


def test_a_real_worker_scores_a_queued_upload_on_the_timing_queue(
    built, alice, celery_worker_process
):
    request = services.check_evaluation_request(
        alice,
        {"source": "completions", "split": "all", "complexity": False},
        ("up.jsonl", lines({"problem": "sum", "program": FAST})),
    )
    evaluation = services.do_create_evaluation(alice, Team.objects.get(name="red"), request)

    wait_for_status(
        celery_worker_process, evaluation, ("done", "failed"), 120, "the evaluation to end"
    )
    assert evaluation.status == "done", evaluation.error
    assert evaluation.results["p_tau"]["100"]["value"] == 1.0
    assert evaluation.progress_done == evaluation.progress_total == 1
    assert evaluation.worker.startswith("test-")  # the worker's hostname, not this process


def test_without_a_correct_sample_the_humans_exponents_still_count(built, alice):
    evaluation = evaluate_upload(alice, lines({"problem": "sum", "program": "print(0)\n"}))
    results = evaluation.results
    assert results["p_tau"]["100"]["value"] == 0.0
    complexity = results["per_problem"]["sum"]["complexity"]
    assert complexity["sample_index"] is None and complexity["sample_exponent"] is None
    assert complexity["improved"] is False  # not solved: not improved, on the same problems
    assert results["complexity_improved"] == {"share": 0.0, "count": 0, "problems": 1}
    assert results["fastest_human_complexity_improved"]["problems"] == 1
    assert results["per_problem"]["sum"]["median_cost_s"] is None


def test_results_hold_no_value_postgresql_json_refuses():
    found = metrics.json_safe({"a": [1.0, float("inf")], "b": {"c": float("nan")}, "d": "x"})
    assert found == {"a": [1.0, None], "b": {"c": None}, "d": "x"}
