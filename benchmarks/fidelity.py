"""The paper's four diagnostics, with the real model (smollm2-135m-instruct), stored where the
pages show them; prints a table and one JSON object.

    DEBUG=1 .venv/bin/python benchmarks/fidelity.py [--quick] [--problems big-sum ...]
        [--seeds 3 --steps 6] [--scorings 2] [--parallel 2] [--json out.json]

Runs on the database `make demo` uses (its pages show every result), with the problems of the
demo's build (built here first when they are not).

1. Timing noise by mode (paper: ~41 percentile points on busy training hosts, ~2 isolated):
   rank jitter of the problems' own correct programs among their references, in `wall`,
   `cpu` and `instructions` modes, idle and under a bounded load this step starts and stops
   (timing/fidelity.py). Stored: the Timing page's "noise by mode" chart.
2. The reward design space (paper: the collapsed binary reward with correctness gating wins):
   the stored configurations ranked by the simulator (rewards/fidelity.py) at the CV of
   repeated CPU times measured on this host as step 1's loaded condition has it (a group of
   the first problem's references scored beside busy processes). Stored: the Rewards page
   marks the winner.
3. The sparse regime (paper: 40-50% of groups all-negative early in training): a real-model
   run of the paper's recipe from its first step; its groups/* shares per step. Stored: a
   training run (its run page charts them).
4. The recipe against standard RLVR (paper: p50 up while p100 holds; +100-200% with a
   degraded sandbox): both recipes from the same start, `--seeds` seeds each, with the timing
   service as it is and degraded on purpose (TrainConfig.degraded_timing_cv and
   degraded_slowdown_rate, the run tagged); each run's last checkpoint evaluated on the
   problems (pτ), and the paper run's against the RLVR run's of the same seed and condition
   (win rate). Intervals: over seeds and problems (a bootstrap over the seeds' values). The
   base model is evaluated on the same seeded samples, the start every run moved from, with
   the share of each run's samples that differ from the base's ("moved").

`--quick`: 1 problem for step 1, 1 seed and few steps for steps 3-4, small evaluations: about
30 minutes on 2 cores. A full run: 3 problems for step 1, 3 seeds x 6 steps, 8 samples a
problem, two runs at a time (`--parallel`, one torch thread each): over 2 hours here (a step
takes 1.5-2 minutes beside the other run; docs/benchmarks.md), and step 1 on 3 problems
about 55 minutes with `--scorings 2` (the paper's "between repeats"), 2.5 hours at its default
5; it needs an idle host (or `--skip noise` and `manage.py noise_by_mode` alone). The
run step 3 trains is seed 0 of step 4's "service as it is" paper run (not trained twice).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))
os.environ.setdefault("DEBUG", "1")
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "codeopt_site.settings")

import django  # noqa: E402

django.setup()

import numpy as np  # noqa: E402
from grpo_demo import RECIPES  # noqa: E402  (the paper's recipe and standard RLVR)

from workers import demo  # noqa: E402

MODEL = "smollm2-135m-instruct"
DEMO_PROBLEMS = list(demo.DEMO_PROBLEMS)  # posed as functions: the model solves them sometimes
DEGRADED = {"degraded_timing_cv": 0.3, "degraded_slowdown_rate": 0.1}
"""A degraded timing service: the CV of one unpinned run on a shared host (0.20-0.45,
docs/benchmarks.md) and one measured cost in ten slowed x1.5-x3."""
GROUP_KINDS = ("all_negative", "all_positive", "mixed", "all_correct_tied")


def log(message: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {message}", file=sys.stderr, flush=True)


def owner():
    from django.contrib.auth import get_user_model

    from foundation.tenancy import Team, check_team_for_new_run

    user, _ = get_user_model().objects.get_or_create(username="demo")
    if not user.teams.exists():  # a database make demo did not set up
        Team.objects.get_or_create(name="demo")[0].members.add(user)
    return user, check_team_for_new_run(user, None)


def ensure_built(slugs: list[str]) -> list[str]:
    """The slugs with stored runtimes; the missing ones built first (the demo's settings)."""
    from problems import services as problem_services
    from rewards.runtimes import loaded_problems

    have = {p.slug for p in loaded_problems("")}
    missing = [s for s in slugs if s not in have]
    if missing:
        log(f"building {', '.join(missing)} (slow_target_s=0.3, repeats=2)")
        config, checked = problem_services.check_build_request(
            {"slow_target_s": "0.3", "repeats": "2"}, missing
        )
        build = problem_services.do_create_build(config, checked, started_by="fidelity")
        problem_services.do_run_build(build.pk)
    have = {p.slug for p in loaded_problems("")}
    kept = [s for s in slugs if s in have]
    if not kept:
        raise SystemExit(f"none of {', '.join(slugs)} was kept by the dataset build")
    return kept


def timing_noise(slugs: list[str], quick: bool, scorings: int | None) -> dict:
    from timing.fidelity import noise_by_mode

    log("1. timing noise by mode")
    chosen = slugs[:1] if quick else slugs
    return noise_by_mode(chosen, quick=quick, store=True, scorings=scorings)


def reward_ranking(slugs: list[str], quick: bool) -> dict:
    from rewards.fidelity import rank_reward_designs

    noise_cv = measured_cv(slugs[0])
    log(f"2. the reward design space at the measured CV {noise_cv:.3f}")
    return {
        **rank_reward_designs(noise_cv, problems=slugs, quick=quick, store=True),
        "measured_on": slugs[0],
    }


def measured_cv(slug: str) -> float:
    """The CV of repeated CPU times of `slug`'s references, scored once as training scores a
    group, beside one busy process per core (the noise a training host has): the noise the
    simulator ranks the reward designs at (its runtimes are CPU seconds)."""
    import tempfile

    from execution.load import busy_load, cores_available
    from rewards.engine import RewardConfig
    from rewards.runtimes import loaded_problems
    from scoring.problems import scoring_problem
    from scoring.scorer import score_group_retrying

    (item,) = loaded_problems("", [slug])
    with tempfile.TemporaryDirectory(prefix="codeopt-fidelity-cv-") as folder:
        Path(folder).chmod(0o711)  # the sandbox user passes through to its boxes
        _, scoring = scoring_problem(item, Path(folder))
        programs = list(dict(scoring.reference_programs).values())
        with busy_load(cores_available()):
            scores = score_group_retrying(programs, scoring, RewardConfig(name="fidelity-cv"))
    found = [s.repeat_cv for s in scores if s.repeat_cv is not None]
    return float(found[0]) if found else 0.05


def train(name: str, slugs: list[str], seed: int, steps: int, fields: dict) -> int:
    """A training run of the real model (scored in this process's sandbox), trained to
    `steps`; returns its id."""
    from training import services as training_services

    user, team = owner()
    data = {
        "model": MODEL,
        "split": "all",
        "problems": slugs,  # the database may hold other built problems
        "group_size": 8,
        "prompts_per_step": 2,
        "trainable_layers": 4,
        "learning_rate": 1e-5,  # the demo's (scripts/demo_train.toml); --learning-rate
        "warm_start_steps": 0,
        "max_new_tokens": 160,
        "temperature": 0.8,
        "steps": steps,
        "checkpoint_every": steps,
        "scoring": "local",
        "seed": seed,
        **fields,
    }
    config, reward = training_services.check_train_request(data)
    run = training_services.do_start_training(
        owner=user, team=team, name=name, config=config, reward=reward, queue=False
    )
    started = time.monotonic()
    status = training_services.do_run_training(run.pk, worker="fidelity")
    log(f"   run {run.pk} {name}: {status} in {time.monotonic() - started:.0f} s")
    return run.pk


def group_shares(run_id: int) -> list[dict]:
    """Per step: the groups/* shares the run logged."""
    from runs.models import MetricPoint

    rows: dict[int, dict] = {}
    for point in (
        MetricPoint.objects.filter(
            series__run_id=run_id, series__key__in=[f"groups/{kind}" for kind in GROUP_KINDS]
        )
        .select_related("series")
        .order_by("step")
    ):
        kind = point.series.key.split("/")[1]
        rows.setdefault(point.step, {"step": point.step})[kind] = point.value
    return [rows[step] for step in sorted(rows)]


def evaluate(run_id: int | None, slugs: list[str], samples: int) -> dict:
    """pτ of a run's last checkpoint, or of the base model (`run_id` None: where every run
    starts), on the same seeded samples: a difference is the weights', not the sampler's."""
    from evaluations import reads, services
    from runs.models import Run

    user, team = owner()
    source = (
        {"source": "model", "model": MODEL} if run_id is None else {"source": "run", "run": run_id}
    )
    request = services.check_evaluation_request(
        user,
        {
            **source,
            "split": "all",
            "problems": slugs,
            "n": samples,
            "temperature": 0.8,
            "max_new_tokens": 160,
            "complexity": False,
        },
    )
    if run_id is not None:
        team = Run.objects.get(pk=run_id).team
    evaluation = services.do_create_evaluation(user, team, request, queue=False)
    services.do_run_evaluation(evaluation.pk, worker="fidelity")
    evaluation.refresh_from_db()
    return {"evaluation": evaluation.pk, **reads.headline(evaluation)}


def interval(values: list[float], seed: int = 0) -> dict:
    """Mean and a 95% bootstrap interval over `values` (seeds): None when there are none."""
    values = [v for v in values if v is not None and v == v]
    if not values:
        return {"mean": None, "low": None, "high": None, "n": 0}
    rng = np.random.default_rng(seed)
    means = rng.choice(values, size=(2000, len(values))).mean(axis=1)
    return {
        "mean": statistics.fmean(values),
        "low": float(np.quantile(means, 0.025)),
        "high": float(np.quantile(means, 0.975)),
        "n": len(values),
    }


def train_and_evaluate(task: tuple) -> tuple:
    """One (condition, recipe, seed) of step 4: the run trained, then its last checkpoint
    evaluated. A module-level function, so a process pool can run it."""
    condition, recipe, seed, slugs, steps, samples, learning_rate = task
    if recipe == "base":
        return ("base",), None, evaluate(None, slugs, samples)
    fields = {
        **RECIPES[recipe],
        **(DEGRADED if condition == "degraded" else {}),
        "learning_rate": learning_rate,
    }
    name = f"fidelity {recipe} seed {seed} ({condition.replace('_', ' ')})"
    run_id = train(name, slugs, seed, steps, fields)
    return (condition, recipe, seed), run_id, evaluate(run_id, slugs, samples)


def recipe_against_rlvr(
    slugs: list[str],
    seeds: int,
    steps: int,
    samples: int,
    parallel: int = 1,
    learning_rate: float = 1e-5,
) -> dict:
    """`parallel` runs at a time, each in a process of its own (spawned: one torch thread
    each with OMP_NUM_THREADS=1, as the demo trains its two runs)."""
    from evaluations import reads
    from evaluations.models import Evaluation

    log(
        f"3-4. paper recipe against RLVR: {seeds} seed(s) x {steps} steps x 2 conditions, "
        f"{parallel} at a time"
    )
    tasks = [
        (condition, recipe, seed, slugs, steps, samples, learning_rate)
        for condition in ("as_is", "degraded")
        for seed in range(seeds)
        for recipe in RECIPES
    ] + [("base", "base", 0, slugs, steps, samples, learning_rate)]
    if parallel > 1:
        import multiprocessing
        from concurrent.futures import ProcessPoolExecutor

        from django.db import connections

        connections.close_all()
        context = multiprocessing.get_context("spawn")
        with ProcessPoolExecutor(parallel, mp_context=context) as pool:
            done = list(pool.map(train_and_evaluate, tasks))
    else:
        done = [train_and_evaluate(task) for task in tasks]
    runs = {key: run_id for key, run_id, _ in done if run_id is not None}
    evaluations = {key: evaluation for key, _, evaluation in done}
    base = evaluations.pop(("base",))
    wins = {}
    for condition in ("as_is", "degraded"):
        for seed in range(seeds):
            paper = Evaluation.objects.get(pk=evaluations[(condition, "paper", seed)]["evaluation"])
            rlvr = Evaluation.objects.get(pk=evaluations[(condition, "rlvr", seed)]["evaluation"])
            wins[(condition, seed)] = reads.win_rate(paper, rlvr).as_dict()
    summary = {}
    for condition in ("as_is", "degraded"):
        summary[condition] = {}
        for recipe in RECIPES:
            rows = [evaluations[(condition, recipe, s)] for s in range(seeds)]
            summary[condition][recipe] = {
                tau: interval([row.get(tau) for row in rows]) for tau in ("p100", "p50", "p30")
            }
            summary[condition][recipe]["changed_from_base"] = interval(
                [changed_share(base["evaluation"], row["evaluation"]) for row in rows]
            )
        summary[condition]["paper_win_rate_over_rlvr"] = interval(
            [wins[(condition, s)]["rate"] for s in range(seeds)]
        )
    return {
        "base": base,
        "runs": {"/".join(map(str, k)): v for k, v in runs.items()},
        "evaluations": {"/".join(map(str, k)): v for k, v in evaluations.items()},
        "win_rates": {"/".join(map(str, k)): v for k, v in wins.items()},
        "summary": summary,
        "sparse_run": runs[("as_is", "paper", 0)],
    }


def changed_share(base_id: int, evaluation_id: int) -> float:
    """The share of an evaluation's samples whose text differs from the base model's sample of
    the same problem and index (the same seed): how far training moved what the model writes."""
    from evaluations.models import EvaluationSample

    def texts(pk: int) -> dict:
        rows = EvaluationSample.objects.filter(evaluation_id=pk)
        return {(r.problem_id, r.index): r.completion for r in rows}

    before, after = texts(base_id), texts(evaluation_id)
    return sum(after[key] != before.get(key) for key in after) / max(len(after), 1)


def fmt(value) -> str:
    return "–" if value is None or value != value else f"{value:.2f}"


def table(result: dict) -> None:
    noise = result["timing_noise"]
    print("1. timing noise: rank jitter p95, percentile points (paper: 41 busy, 2 isolated)")
    for mode, conditions in sorted((noise.get("results") or {}).items()):
        for condition, figures in sorted(conditions.items()):
            print(
                f"   {mode:12s} {condition:7s} p95 {fmt(figures.get('p95'))}  "
                f"max {fmt(figures.get('max'))}"
            )
    ranking = result["reward_ranking"]
    print(
        f"2. reward design space at CV {ranking.get('noise_cv') or 0:.3g}: winner "
        f"{ranking.get('winner')} ({ranking.get('winner_family')})"
    )
    for row in (ranking.get("scores") or [])[:5]:
        print(f"   {row['name']:36s} score {fmt(row['score'])}")
    print(
        "3. the sparse regime: groups/* shares per step of the paper run (paper: 40-50% "
        "all-negative early)"
    )
    for row in result["sparse_regime"]["steps"]:
        shares = "  ".join(f"{k} {fmt(row.get(k))}" for k in GROUP_KINDS)
        print(f"   step {row['step']:3d}  {shares}")
    base = result["recipe_against_rlvr"]["base"]
    print("4. recipe against RLVR: mean [95% interval] over seeds; 'moved': share of samples")
    print("   unlike the base model's (same seed)")
    print(
        "   base model  "
        + "  ".join(f"{tau} {fmt(base.get(tau))}" for tau in ("p100", "p50", "p30"))
    )
    for condition, recipes in result["recipe_against_rlvr"]["summary"].items():
        for recipe, figures in recipes.items():
            if recipe == "paper_win_rate_over_rlvr":
                print(
                    f"   {condition:9s} paper's win rate over RLVR {fmt(figures['mean'])} "
                    f"[{fmt(figures['low'])}, {fmt(figures['high'])}]"
                )
                continue
            cells = "  ".join(
                f"{tau.replace('changed_from_base', 'moved')} {fmt(f['mean'])} "
                f"[{fmt(f['low'])}, {fmt(f['high'])}]"
                for tau, f in figures.items()
            )
            print(f"   {condition:9s} {recipe:5s} {cells}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--problems", nargs="*", default=DEMO_PROBLEMS)
    parser.add_argument("--seeds", type=int, default=None, help="Default: 1 quick, 3 full.")
    parser.add_argument("--steps", type=int, default=None, help="Default: 3 quick, 6 full.")
    parser.add_argument(
        "--samples",
        type=int,
        default=None,
        help="Evaluation samples per problem (default: 4 quick, 8 full).",
    )
    parser.add_argument(
        "--skip",
        nargs="*",
        default=[],
        choices=["noise", "rewards"],
        help="Steps to leave out (their stored results stay).",
    )
    parser.add_argument(
        "--scorings",
        type=int,
        default=None,
        help="Step 1's scorings of each group in the timed modes (default: 2 quick, 5 full; "
        "2 is the paper's 'between repeats').",
    )
    parser.add_argument(
        "--parallel", type=int, default=2, help="Runs of step 4 at a time (processes)."
    )
    parser.add_argument(
        "--learning-rate", type=float, default=1e-5, help="Of every run (the demo's: 1e-5)."
    )
    parser.add_argument("--json", default="")
    args = parser.parse_args()
    seeds = args.seeds or (1 if args.quick else 3)
    steps = args.steps or (3 if args.quick else 6)
    samples = args.samples or (4 if args.quick else 8)
    started = time.monotonic()
    slugs = ensure_built(args.problems)
    noise = {} if "noise" in args.skip else timing_noise(slugs, args.quick, args.scorings)
    ranking = {} if "rewards" in args.skip else reward_ranking(slugs, args.quick)
    contest = recipe_against_rlvr(slugs, seeds, steps, samples, args.parallel, args.learning_rate)
    steps_seen = group_shares(contest["sparse_run"])
    result = {
        "model": MODEL,
        "quick": args.quick,
        "problems": slugs,
        "timing_noise": noise,
        "reward_ranking": ranking,
        "sparse_regime": {
            "run": contest["sparse_run"],
            "steps": steps_seen,
            "first_all_negative": steps_seen[0].get("all_negative") if steps_seen else None,
            "last_all_negative": steps_seen[-1].get("all_negative") if steps_seen else None,
        },
        "recipe_against_rlvr": contest,
        "settings": {
            "seeds": seeds,
            "steps": steps,
            "samples": samples,
            "learning_rate": args.learning_rate,
        },
        "seconds": round(time.monotonic() - started),
    }
    table(result)
    print(json.dumps(result, default=str))
    if args.json:
        Path(args.json).write_text(json.dumps(result, indent=2, default=str))


if __name__ == "__main__":
    main()
