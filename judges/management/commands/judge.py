"""Judge where the speed of optimized programs comes from (PAPER.md section 6)."""

from __future__ import annotations

import json
from pathlib import Path

from django.core.management.base import BaseCommand

from foundation import jsonlines
from foundation.commands import exiting_on_value_error, run_in_foreground, user_named
from foundation.tenancy import check_team_for_new_run
from judges import reads, services


class Command(BaseCommand):
    help = (
        "Judge the speedups of a run (its newest evaluation), an evaluation, or a JSON-lines "
        "file of pairs (problem, baseline, optimized[, baseline_s, optimized_s]). Baseline: "
        "the median human reference, or the starting model (--baseline start). Judges: the "
        "built-in analyzer, the LLM (JUDGE_LLM_* settings), or both (the default when an "
        "endpoint is configured)."
    )

    def add_arguments(self, parser):
        what = parser.add_mutually_exclusive_group(required=True)
        what.add_argument("--run", type=int)
        what.add_argument("--evaluation", type=int)
        what.add_argument("--pairs", type=Path)
        parser.add_argument("--judge", choices=["analyzer", "llm", "both"], default=None)
        parser.add_argument("--baseline", choices=["human", "start"], default="human")
        parser.add_argument(
            "--baseline-evaluation",
            type=int,
            default=None,
            help="The starting model's evaluation (implies --baseline start; default: the "
            "step-0 evaluation of the evaluated run).",
        )
        parser.add_argument(
            "--per-category",
            type=int,
            default=None,
            help="With --pairs: only the first N pairs of each labelled category.",
        )
        parser.add_argument("--tie-band", type=float, default=services.DEFAULT_TIE_BAND)
        parser.add_argument(
            "--no-measure",
            action="store_true",
            help="Judge without measuring each pair's evidence on its problem's generator.",
        )
        parser.add_argument("--name", default="")
        parser.add_argument("--user", required=True, help="Owner of the batch.")
        parser.add_argument("--team", default=None)
        parser.add_argument("--queue", action="store_true", help="Run on a `judge` worker.")
        parser.add_argument("--json", action="store_true", help="One JSON object per pair.")

    def handle(self, *args, **o):
        user = user_named(o["user"])
        with exiting_on_value_error():
            upload = jsonlines.read_file(o["pairs"], "pairs")
            if upload is not None and o["per_category"]:
                upload = (upload[0], services.first_per_category(upload[1], o["per_category"]))
            request = services.check_judge_request(
                user,
                {
                    "run": o["run"],
                    "evaluation": o["evaluation"],
                    "judge": [o["judge"]] if o["judge"] else None,
                    "baseline": "start" if o["baseline_evaluation"] else o["baseline"],
                    "baseline_evaluation": o["baseline_evaluation"],
                    "tie_band": o["tie_band"],
                    "measure": not o["no_measure"],
                    "name": o["name"],
                },
                upload,
            )
            evaluation_team = request.evaluation.team if request.evaluation else None
            team = check_team_for_new_run(user, o["team"], evaluation_team)
        for error in request.input_errors:
            where = f"line {error['line']}" if "line" in error else error.get("problem", "")
            self.stderr.write(f"left out: {where}: {error['error']}")
        batch = services.do_create_batch(user, team, request, queue=o["queue"])
        if o["queue"]:
            self.stdout.write(f"judge batch {batch.pk} ({batch.name}) queued")
            return
        run_in_foreground(self, services.do_run_batch, batch.pk)
        rows = reads.pair_rows(batch)
        if o["json"]:
            for row in rows:
                self.stdout.write(json.dumps(row))
            return
        for row in rows:
            speedup = f"{row['speedup']:.2f}x" if row["speedup"] else "–"
            self.stdout.write(
                f"{row['problem']:<24} {speedup:>8} {row['kind']:<13} "
                f"{row['category'] or '–':<20} {row['rationale']}"
            )
        breakdown = reads.breakdown(batch)
        for judge, counts in breakdown["judges"].items():
            shares = ", ".join(f"{c} {n}" for c, n in counts["categories"].items() if n)
            self.stdout.write(f"{judge}: {shares or 'nothing judged'} ({counts['errors']} errors)")
