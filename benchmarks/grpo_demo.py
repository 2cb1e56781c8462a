"""Issue 6: the paper's recipe against standard RLVR, from the same warm start, on this
machine, for a fixed wall-clock budget each; and the trainer's step-time split.

Both runs go through the product (training.services.do_start_training / do_run_training) on
the database the environment names, so the Runs page and its compare view show them after.
Needs built problems (build_dataset) and the built-in reward configurations
(load_reward_configs).

- paper: reward binary-top30, token-weighted baseline, no std division;
- rlvr: reward correctness-only, plain-mean baseline, advantages divided by the group std.
Same tiny model, tokenizer, warm start (deterministic from the seed), G, P, learning rate,
problems and budget; scoring in the training process (`scoring = "local"`), one run after
the other.

    DEBUG=1 .venv/bin/python benchmarks/grpo_demo.py [--minutes 15] [--problems 4] \
        [--user demo]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from _harness import report  # noqa: E402

RECIPES = {
    "paper": {"reward_config": "binary-top30"},
    "rlvr": {
        "reward_config": "correctness-only",
        "token_weighted_baseline": False,
        "normalize_std": True,
    },
}
KEYS = ("eval/p50", "eval/p100", "groups/all_negative", "rewards/mean")


def series(run, key: str) -> list[tuple[int, float | None, float]]:
    from runs.models import MetricPoint

    return [
        (p.step, p.value, p.recorded_at.timestamp())
        for p in MetricPoint.objects.filter(series__run=run, series__key=key).order_by("step")
    ]


def window_mean(points, start_s: float, end_s: float, origin: float) -> float | None:
    values = [v for _, v, t in points if v is not None and start_s <= t - origin < end_s]
    return round(statistics.fmean(values), 3) if values else None


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--minutes", type=float, default=15.0)
    parser.add_argument("--problems", type=int, default=4)
    parser.add_argument("--user", default="demo")
    parser.add_argument("--group-size", type=int, default=8)
    parser.add_argument("--prompts", type=int, default=2)
    parser.add_argument("--learning-rate", type=float, default=3e-4)
    parser.add_argument("--warm-start-steps", type=int, default=400)
    args = parser.parse_args()
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "codeopt_site.settings")
    import django

    django.setup()
    from django.contrib.auth import get_user_model

    from foundation.tenancy import Team
    from training import services as training_services

    user, _ = get_user_model().objects.get_or_create(username=args.user)
    team, _ = Team.objects.get_or_create(name="demo")
    team.members.add(user)
    common = {
        "model": "tiny",
        "split": "all",
        "max_problems": args.problems,
        "group_size": args.group_size,
        "prompts_per_step": args.prompts,
        "learning_rate": args.learning_rate,
        "warm_start_steps": args.warm_start_steps,
        "max_new_tokens": 256,
        "steps": 100_000,
        "max_minutes": args.minutes,
        "checkpoint_every": 50,
        "scoring": "local",
        "seed": 0,
    }
    figures = {}
    for name, recipe in RECIPES.items():
        config, reward = training_services.check_train_request({**common, **recipe})
        run = training_services.do_start_training(
            owner=user, team=team, name=f"demo-{name}", config=config, reward=reward, queue=False
        )
        started = time.time()
        status = training_services.do_run_training(run.pk, worker="benchmark")
        training_s = args.minutes * 60
        p50, negative = series(run, "eval/p50"), series(run, "groups/all_negative")
        origin = p50[0][2] if p50 else started
        minutes = int(args.minutes)
        step_s = [v for _, v, _ in series(run, "time/step_s") if v is not None]
        split = {
            key.split("/")[1]: round(statistics.fmean(v for _, v, _ in series(run, key)), 3)
            for key in ("time/generate_s", "time/score_wait_s", "time/update_s")
        }
        overhead = [v for _, v, _ in series(run, "time/overhead_share") if v is not None]
        figures[name] = {
            "run": run.pk,
            "status": status,
            "steps": len(p50),
            "wall_s": round(time.time() - started, 1),
            "p50_by_minute": [
                window_mean(p50, 60 * m, 60 * (m + 1), origin) for m in range(minutes)
            ],
            "all_negative_by_minute": [
                window_mean(negative, 60 * m, 60 * (m + 1), origin) for m in range(minutes)
            ],
            "p50_first_3_min": window_mean(p50, 0, 180, origin),
            "p50_last_3_min": window_mean(p50, training_s - 180, training_s + 60, origin),
            "all_negative_first_3_min": window_mean(negative, 0, 180, origin),
            "all_negative_last_3_min": window_mean(
                negative, training_s - 180, training_s + 60, origin
            ),
            "step_s_mean": round(statistics.fmean(step_s), 2) if step_s else None,
            "split_s_mean": split,
            "overhead_share_mean": round(statistics.fmean(overhead), 4) if overhead else None,
            "rollouts_scored_per_s": round(
                len(p50) * args.group_size * args.prompts / sum(step_s), 2
            )
            if step_s
            else None,
        }
        print(json.dumps({name: figures[name]}), file=sys.stderr)
    report("grpo_demo", {"minutes": args.minutes, "problems": args.problems, **figures})


if __name__ == "__main__":
    main()
