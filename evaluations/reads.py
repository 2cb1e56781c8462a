"""Queries of the evaluations pages and command: figures as stored, win rates computed from
the stored samples on demand (they depend on the pair)."""

from __future__ import annotations

import csv
import io
import math

from evaluations import metrics
from evaluations.models import Evaluation
from foundation import inputs
from foundation.jobs import JobStatus, shown_status
from foundation.liveness import heartbeats
from foundation.queueing import QueuedJob, Queues, queued, sees
from foundation.tenancy import team_scoped
from problems.loading import problems_per_split

SPLITS = ("test", "train", "all")
"""In the order a default is chosen: the held-out problems first."""


def split_counts() -> dict[str, int]:
    """{split: problems an evaluation of it would score} (problems.loading)."""

    return problems_per_split()


def default_split(counts: dict[str, int]) -> str:
    """The first split of SPLITS with problems to evaluate (test, the held-out problems,
    when it has some); "test" when none has (a request then says so)."""
    return next((split for split in SPLITS if counts.get(split)), SPLITS[0])


def split_options(counts: dict[str, int], default: str) -> dict:
    """What the forms offer for `split` (the Evaluations page's and a run page's): each
    split with its problem count, the default, and why it is not test when it is not."""
    note = ""
    if not counts.get(default):
        note = "No split has a built problem yet: run a dataset build (Dataset page) first."
    elif default != SPLITS[0]:
        note = (
            f"The {SPLITS[0]} split has no built problem yet: {default} is chosen "
            "instead (not held out from training)."
        )
    return {
        "options": [(split, counts.get(split, 0)) for split in SPLITS],
        "default": default,
        "note": note,
    }


def outcomes_of(evaluation: Evaluation) -> dict[str, list[metrics.SampleOutcome]]:
    """{problem slug: scored samples} of an evaluation."""
    found: dict[str, list[metrics.SampleOutcome]] = {}
    for slug, correct, percentile, cost in (
        evaluation.samples.exclude(verdict="")
        .order_by("problem__slug", "index")
        .values_list("problem__slug", "correct", "speed_percentile", "cost_s")
    ):
        found.setdefault(slug, []).append(metrics.SampleOutcome(correct, percentile, cost))
    return found


def visible_evaluations(user):
    """Evaluations of the user's teams; all for staff; none for an anonymous user."""

    return team_scoped(Evaluation.objects.select_related("owner", "team", "run"), user)


class NotVisible(inputs.InputError):
    """An evaluation named that the user cannot see (or that does not exist): a page's 400,
    the API's 404."""


def chosen(user, raw: str, field: str) -> list[Evaluation]:
    """The evaluations named by `raw` ("3,1,2": that order), all visible to the user;
    ValueError naming `field` for text that is not numbers or an evaluation not visible."""
    ids = inputs.record_ids(field, raw)
    found = {e.pk: e for e in visible_evaluations(user).filter(pk__in=ids)}
    missing = [str(i) for i in ids if i not in found]
    if missing:
        raise NotVisible(field, f"no evaluation {', '.join(missing)} you can see")
    return [found[i] for i in dict.fromkeys(ids)]


def win_rate(a: Evaluation, b: Evaluation, tie_band: float = 0.05) -> metrics.WinRate:
    """Win rate of a over b on the problems both evaluated (evaluations.metrics.win_rate)."""
    return metrics.win_rate(outcomes_of(a), outcomes_of(b), tie_band=tie_band, seed=a.seed)


def _finite(value):
    return None if value is None or (isinstance(value, float) and math.isnan(value)) else value


def headline(evaluation: Evaluation) -> dict:
    """The figures the command prints and the comparison table shows, flat."""
    results = evaluation.results or {}
    row = {
        "evaluation": evaluation.pk,
        "name": evaluation.name,
        "status": evaluation.status,
        "n": evaluation.n,
        "n_problems": results.get("n_problems"),
    }
    for tau, estimate in sorted((results.get("p_tau") or {}).items(), key=lambda kv: -float(kv[0])):
        row[f"p{tau}"] = _finite(estimate["value"])
        row[f"p{tau}_ci"] = [_finite(estimate["low"]), _finite(estimate["high"])]
    for key in (
        "beats_fastest_human",
        "complexity_improved",
        "fastest_human_complexity_improved",
    ):
        row[key] = (results.get(key) or {}).get("share")
    row["interval_warning"] = (
        metrics.few_problems_warning(results.get("n_problems"))
        if evaluation.status == Evaluation.Status.DONE
        else ""
    )
    return row


def list_rows(user, limit: int = 200, run=None) -> list[dict]:
    """The newest evaluations the user can see (of `run` only, when given): progress, what
    a queued one waits for, and headline figures."""

    queues = Queues(user)
    evaluations = visible_evaluations(user)
    if run is not None:
        evaluations = evaluations.filter(run=run)
    rows = []
    beats = heartbeats()
    for evaluation in evaluations[:limit]:
        row = headline(evaluation)
        shown, error = shown_status(evaluation, beats)  # a dead worker's: "lost"
        row.update(
            status=shown,
            source=evaluation.get_source_display(),
            run=evaluation.run_id,
            step=evaluation.step,
            split=evaluation.split,
            created_at=evaluation.created_at.isoformat(),
            stage=evaluation.stage,
            progress_done=evaluation.progress_done,
            progress_total=evaluation.progress_total,
            progress_text=evaluation.progress_text,
            waiting=(
                queues.waiting_text(
                    evaluation.queue, f"evaluation #{evaluation.pk}", evaluation.created_at
                )
                if evaluation.status == Evaluation.Status.QUEUED
                else ""
            ),
            error=error,
            input_errors=evaluation.input_errors,
            owner=evaluation.owner.username,
        )
        rows.append(row)
    return rows


def run_rows(user, run) -> dict:
    """The run's evaluations for its page: {"taus": every τ shown (the defaults and any
    asked for), "rows": list_rows with a cell per τ, each its value and 95% interval}."""
    rows = list_rows(user, run=run)
    taus = sorted(
        {float(t) for r in rows for t in _taus_of(r)} | set(metrics.DEFAULT_TAUS), reverse=True
    )
    for row in rows:
        row["cells"] = tau_cells(row, taus)
    return {"taus": taus, "rows": rows}


def _taus_of(row: dict) -> list[str]:
    return [k[1:] for k in row if k.startswith("p") and k[1:].replace(".", "").isdigit()]


def tau_cells(row: dict, taus: list[float]) -> list[dict]:
    """A headline row's pτ per τ of `taus`: {value, low, high} (None where it has none)."""
    cells = []
    for tau in taus:
        low, high = row.get(f"p{tau:g}_ci") or (None, None)
        cells.append({"value": row.get(f"p{tau:g}"), "low": low, "high": high})
    return cells


def comparison(evaluations: list[Evaluation], tie_band: float = 0.05) -> dict:
    """Side by side: the headline rows, pτ over every τ any of them has, and the win-rate
    matrix (row over column) of those that are done."""
    done = [e for e in evaluations if e.status == Evaluation.Status.DONE]
    taus = sorted(
        {float(t) for e in done for t in (e.results or {}).get("p_tau", {})}, reverse=True
    )
    matrix = [
        [None if a.pk == b.pk else win_rate(a, b, tie_band).as_dict() for b in done] for a in done
    ]
    rows = [headline(e) for e in evaluations]
    table = [{**row, "cells": tau_cells(row, taus)} for row in rows]
    return {
        "rows": rows,
        "table": table,
        "taus": taus,
        "curves": [
            {
                "name": e.name,
                "id": e.pk,
                "points": [
                    {"tau": tau, **(e.results["p_tau"].get(f"{tau:g}") or {})} for tau in taus
                ],
            }
            for e in done
        ],
        "win_rates": {
            "ids": [e.pk for e in done],
            "names": [e.name for e in done],
            "matrix": matrix,
        },
    }


CSV_FIELDS = ("evaluation", "name", "status", "n", "n_problems")


def comparison_csv(evaluations: list[Evaluation]) -> str:
    """One row per evaluation: the headline figures, each τ with its interval."""
    rows = [headline(e) for e in evaluations]
    taus = sorted(
        {
            key[1:]
            for row in rows
            for key in row
            if key.startswith("p") and key[1:].replace(".", "").isdigit()
        },
        key=lambda t: -float(t),
    )
    fields = list(CSV_FIELDS)
    for tau in taus:
        fields += [f"p{tau}", f"p{tau}_low", f"p{tau}_high"]
    fields += ["beats_fastest_human", "complexity_improved", "fastest_human_complexity_improved"]
    out = io.StringIO()
    writer = csv.DictWriter(out, fields, extrasaction="ignore")
    writer.writeheader()
    for row in rows:
        flat = dict(row)
        for tau in taus:
            low, high = row.get(f"p{tau}_ci") or (None, None)
            flat[f"p{tau}_low"], flat[f"p{tau}_high"] = low, high
        writer.writerow(flat)
    return out.getvalue()


def queued_evaluations(user, teams, queue: str) -> list[QueuedJob]:
    """Evaluations queued or running on `queue` (`gpu` when they generate, `timing` for
    uploads only; foundation.queueing)."""
    active = Evaluation.objects.filter(status__in=[JobStatus.QUEUED, JobStatus.RUNNING])
    return [
        queued(f"evaluation #{e.pk}", e, sees(teams, e.team_id))
        for e in active.defer("results", "problem_slugs", "input_errors")
        if e.queue == queue
    ]
