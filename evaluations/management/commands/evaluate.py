"""Evaluate a run's checkpoint, a base model or a file of completions (PAPER.md section 5)."""

from __future__ import annotations

import json
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from evaluations import reads, services
from evaluations.models import Evaluation
from foundation import jsonlines
from foundation.commands import exiting_on_value_error, run_in_foreground, user_named
from foundation.tenancy import check_team_for_new_run
from runs.models import Run


class Command(BaseCommand):
    help = (
        "Evaluate (--run ID [--step S] | --model PATH | --completions FILE) on a split: pτ "
        "pass@1 with bootstrap intervals, against the fastest human, complexity gains; with "
        "--against EVAL_ID the win rate. In the foreground by default; --queue hands it to a "
        "worker."
    )

    def add_arguments(self, parser):
        what = parser.add_mutually_exclusive_group(required=True)
        what.add_argument("--run", type=int, help="A training run: its checkpoint.")
        what.add_argument(
            "--model",
            help="A base model: 'smollm2-135m-instruct', 'tiny' or a local transformers folder.",
        )
        what.add_argument(
            "--completions", type=Path, help="JSON lines: problem, program[, sample_index]."
        )
        parser.add_argument(
            "--step", type=int, default=None, help="Checkpoint step (default: latest)."
        )
        parser.add_argument(
            "--split",
            default=None,
            choices=services.SPLITS,
            help="Default: test, or the first of train, all with built problems.",
        )
        parser.add_argument(
            "--problems", nargs="*", default=[], help="Problem slugs (default: the split's)."
        )
        parser.add_argument(
            "--n", type=int, default=20, help="Samples per problem (an upload has its own)."
        )
        parser.add_argument("--temperature", type=float, default=1.0)
        parser.add_argument("--seed", type=int, default=0)
        parser.add_argument("--max-new-tokens", type=int, default=256)
        parser.add_argument("--taus", default="", help="More τ values, e.g. '20 5'.")
        parser.add_argument("--no-complexity", action="store_true", help="Skip scaling exponents.")
        parser.add_argument(
            "--against", type=int, default=None, help="Win rate against this evaluation."
        )
        parser.add_argument("--tie-band", type=float, default=0.05, help="Win rate: relative tie.")
        parser.add_argument("--name", default="")
        parser.add_argument("--user", default=None, help="Owner (default: the run's owner).")
        parser.add_argument(
            "--team", default=None, help="Team (default: the run's, or the user's only one)."
        )
        parser.add_argument("--queue", action="store_true", help="Run on a worker and return.")
        parser.add_argument("--json", action="store_true", help="One JSON object.")

    def handle(self, *args, **o):
        user = self._user(o)
        with exiting_on_value_error():
            against = self._against(user, o["against"])
            if o["step"] is not None and not o["run"]:
                raise ValueError("step: only with --run (a checkpoint of a run)")
            upload = jsonlines.read_file(o["completions"], "completions")
            source = "run" if o["run"] else "model" if o["model"] else "completions"
            request = services.check_evaluation_request(
                user,
                {
                    "source": source,
                    "run": o["run"],
                    "step": o["step"],
                    "model": o["model"],
                    "split": o["split"],
                    "problems": o["problems"],
                    "n": o["n"],
                    "temperature": o["temperature"],
                    "seed": o["seed"],
                    "max_new_tokens": o["max_new_tokens"],
                    "taus": o["taus"],
                    "complexity": not o["no_complexity"],
                    "name": o["name"],
                },
                upload,
            )
            run_team = request.run.team if request.run else None
            team = check_team_for_new_run(user, o["team"], run_team)
        for error in request.input_errors:
            self.stderr.write(f"{request.completions_file} line {error['line']}: {error['error']}")
        evaluation = services.do_create_evaluation(user, team, request, queue=o["queue"])
        if o["queue"]:
            self.stdout.write(f"evaluation {evaluation.pk} ({evaluation.name}) queued")
            return
        run_in_foreground(self, services.do_run_evaluation, evaluation.pk, worker="cli")
        evaluation.refresh_from_db()
        self._report(evaluation, against, o)

    def _user(self, o):
        if o["user"]:
            return user_named(o["user"])
        if o["run"]:
            run = Run.objects.select_related("owner").filter(pk=o["run"]).first()
            if run is None:
                raise CommandError(f"run: no run {o['run']}")
            return run.owner
        raise CommandError("user: name the evaluation's owner (--user)")

    def _against(self, user, against_id):
        if against_id is None:
            return None
        other = reads.visible_evaluations(user).filter(pk=against_id).first()
        if other is None:
            raise ValueError(f"against: no evaluation {against_id} you can see")
        if other.status != Evaluation.Status.DONE:
            raise ValueError(f"against: evaluation {against_id} is {other.status}, not done")
        return other

    def _report(self, evaluation, against, o):
        if evaluation.status != Evaluation.Status.DONE:
            raise CommandError(
                f"evaluation {evaluation.pk} {evaluation.status}: {evaluation.error}"
            )
        row = reads.headline(evaluation)
        row["input_errors"] = evaluation.input_errors
        if against is not None:
            row["win_rate"] = reads.win_rate(evaluation, against, o["tie_band"]).as_dict()
            row["against"] = against.pk
        if o["json"]:
            self.stdout.write(json.dumps(row, indent=2))
            return
        self.stdout.write(
            f"evaluation {evaluation.pk} ({evaluation.name}): {row['n_problems']} problems, "
            f"n={evaluation.n}"
        )
        for key, value in row.items():
            if key.startswith("p") and key[1:].replace(".", "").isdigit():
                low, high = row[f"{key}_ci"]
                self.stdout.write(f"  {key:<5} {_fmt(value)}  95% CI [{_fmt(low)}, {_fmt(high)}]")
        for key in (
            "beats_fastest_human",
            "complexity_improved",
            "fastest_human_complexity_improved",
        ):
            self.stdout.write(f"  {key}: {_fmt(row[key])}")
        if against is not None:
            w = row["win_rate"]
            self.stdout.write(
                f"  win_rate over {against.pk}: {_fmt(w['rate'])} 95% CI [{_fmt(w['low'])}, "
                f"{_fmt(w['high'])}] ({w['wins']} won, {w['ties']} tied, {w['losses']} lost, "
                f"{w['neither']} without a correct sample on either side)"
            )


def _fmt(value) -> str:
    return "–" if value is None or value != value else f"{value:.3f}"
