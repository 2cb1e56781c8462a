"""Issue 7: a training run's starting point (step 0) against its newest kept checkpoint:
pτ pass@1 with intervals, against the fastest human, complexity, the win rate of the newest
over the start, and each evaluation's wall time. The two evaluations go through the product
(evaluations.services), on the database the environment names, so the Evaluations page
shows them after; they run one after the other in this process.

Needs a training run with checkpoints (`make demo`'s, or one from benchmarks/grpo_demo.py):

    DEBUG=1 .venv/bin/python benchmarks/evaluation_demo.py [--run ID] [--n 20] [--split all]

For `make demo`'s database: `DEBUG=1 CODEOPT_VAR_DIR=<its var/> ...` (default: the newest
finished training run there).
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from _harness import report  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--run", type=int, default=None, help="Default: newest finished run.")
    parser.add_argument("--n", type=int, default=20)
    parser.add_argument("--split", default="all")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "codeopt_site.settings")
    import django

    django.setup()
    from evaluations import reads, services
    from runs.models import Run
    from training.services import checkpoint_steps

    runs = Run.objects.filter(training__isnull=False)
    run = (
        runs.get(pk=args.run)
        if args.run
        else runs.filter(status="finished").order_by("-pk").first()
    )
    if run is None:
        sys.exit("no finished training run here: train one first (make demo, grpo_demo.py)")
    latest = max(checkpoint_steps(run.training))
    figures, done = {}, []
    for step in (0, latest):
        request = services.check_evaluation_request(
            run.owner,
            {"source": "run", "run": run.pk, "step": step, "split": args.split, "n": args.n,
             "seed": args.seed},
        )  # fmt: skip
        evaluation = services.do_create_evaluation(run.owner, run.team, request, queue=False)
        started = time.perf_counter()
        services.do_run_evaluation(evaluation.pk, worker="benchmark")
        evaluation.refresh_from_db()
        row = reads.headline(evaluation)
        row["wall_s"] = round(time.perf_counter() - started, 1)
        figures[f"step_{step}"] = row
        done.append(evaluation)
    start, newest = done
    figures["win_rate_newest_over_start"] = reads.win_rate(newest, start).as_dict()
    report("evaluation_demo", {"run": run.pk, "n": args.n, "split": args.split, **figures})


if __name__ == "__main__":
    main()
