"""Which estimate of a program's cost, from interleaved timing rounds, ranks most steadily.

The scorer ranks each program by the lowest of its runs on a test (engine.lowest_cost).
This script tries the alternatives on the same samples, so the comparison is not blurred by
the machine's drift between experiments:
- `lowest`: the lowest of the rounds (the product);
- `median`: the median of the rounds;
- `paired`: for each pair of programs, the median over rounds of the log ratio of their two
  runs in the same round (a slow spell that a whole round shares cancels);
- `round_normalized`: each run divided by its round's median run before the median over
  rounds (the same idea, one cost per program).

Samples: every accepted Python program of each built problem (benchmarks/_pack.py, the
demo's build settings) measured as a candidate and again as a reference, `--rounds` rounds
per optimization test with no early stop, `--remeasure` times, as `rank_check` scores a
group. Figures per estimator:
- `copy_noise_pct`: the median over (program, test) of the sd, over the re-measurements, of
  the estimated log cost ratio between a program and its own copy, in percent: the timer
  noise a ranking sees (0 on a perfect timer);
- rank jitter p95 / median / max: each candidate's speed percentile among the references
  (ties by `--tie-band` and `--tie-ramp`), its range over the re-measurements.
Then the product's estimator (the lowest) under other tie rules (`TIE_RULES`: the hard band
of before, the ramp from equal costs of before, bands and ramps around today's default), so
the default rule is chosen on the same samples as the rules it replaced.

    .venv/bin/python benchmarks/rank_estimators.py [--problems sort-numbers big-sum]
        [--remeasure 5] [--rounds 10] [--tie-band 0.08 --tie-ramp 0.30] [--loaded]
        [--samples FILE] [--first-rounds K]
    (--loaded: measured beside rank_jitter.py's bounded load, 2 busy processes;
     --samples: a file of samples written by an earlier run, read instead of measuring;
     --first-rounds: rank from each test's first K rounds, as timing_repeats K would;
     without it the samples are written to var/bench/rank_samples[_loaded].json)
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import tempfile
import warnings
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import numpy as np  # noqa: E402
from _harness import ROOT, report  # noqa: E402
from _pack import built  # noqa: E402
from rank_jitter import DEMO_BUILD, burners  # noqa: E402

from execution.engine import Program, measure  # noqa: E402
from execution.sandbox import Limits  # noqa: E402
from foundation.ranking import (  # noqa: E402
    DEFAULT_TIE_BAND,
    DEFAULT_TIE_RAMP,
    Ties,
    faster_share,
)

CANDIDATE, REFERENCE = "p:", "ref:"


def collect(slugs: list[str], remeasure: int, rounds: int) -> dict:
    """{slug: [one re-measurement: {name: [per test: {verdict, cpu: [per round]}]}]}"""
    work = Path(tempfile.mkdtemp(prefix="codeopt-estimators-"))
    work.chmod(0o711)
    problems = [built(slug, DEMO_BUILD, work / "now") for slug in slugs]
    samples: dict = {p.slug: [] for p in problems}
    for index in range(remeasure):
        for problem in problems:
            names = sorted(problem.accepted_python)
            programs = [
                Program(role + n, problem.accepted_python[n], "python")
                for role in (CANDIDATE, REFERENCE)
                for n in names
            ]
            cap = problem.scoring.cap_s
            reports = measure(
                programs,
                problem.scoring.optimization,
                limits=Limits(cpu_seconds=cap, wall_seconds=3 * cap + 5),
                repeats=rounds,
                checker=problem.scoring.checker,
                workdir=work,
            )
            samples[problem.slug].append(
                {
                    name: [{"verdict": t.verdict, "cpu": t.cpu_samples} for t in r.tests]
                    for name, r in reports.items()
                }
            )
            print(f"re-measurement {index + 1}/{remeasure}: {problem.slug}", file=sys.stderr)
    return samples


def round_matrix(measured: dict, names: list[str], test: int) -> np.ndarray:
    """(M, K) CPU seconds of `names` on `test` by round: inf for a program stopped by the time
    limit, nan for a failed one (it has no cost)."""
    rounds = max(len(measured[n][test]["cpu"]) for n in names)
    out = np.full((len(names), rounds), np.nan)
    for i, name in enumerate(names):
        run = measured[name][test]
        if run["verdict"] == "OK":
            out[i, : len(run["cpu"])] = run["cpu"]
        elif run["verdict"] == "TIME_LIMIT":
            out[i] = math.inf
    return out


def _one_cost(costs: np.ndarray) -> np.ndarray:
    """(M, M) log ratios from one cost per program (M,)."""
    with np.errstate(invalid="ignore"):
        logs = np.log(costs)
        return logs[:, None] - logs[None, :]


def log_ratios(samples: np.ndarray, estimator: str) -> np.ndarray:
    """(M, M): the estimated log(cost i / cost j) from (M, K) rounds; +-inf against a timed-out
    program, nan (both timed out, or a failed one) where there is no ratio."""
    finished = np.where(np.isfinite(samples), samples, np.nan)
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # a timed-out row: no finished run
        if estimator == "lowest":
            ratios = _one_cost(np.nanmin(finished, axis=1))
        elif estimator == "median":
            ratios = _one_cost(np.nanmedian(finished, axis=1))
        elif estimator == "round_normalized":
            logs = np.log(finished)
            ratios = _one_cost(np.exp(np.nanmedian(logs - np.nanmedian(logs, axis=0), axis=1)))
        elif estimator == "paired":
            logs = np.log(finished)
            ratios = np.nanmedian(logs[:, None, :] - logs[None, :, :], axis=2)
        else:
            raise ValueError(estimator)
    timed_out = np.isinf(samples[:, 0])
    ratios = np.where(timed_out[:, None] & ~timed_out[None, :], math.inf, ratios)
    ratios = np.where(~timed_out[:, None] & timed_out[None, :], -math.inf, ratios)
    return np.where(timed_out[:, None] & timed_out[None, :], np.nan, ratios)


def percentiles(ratios: np.ndarray, candidates: int, ties: Ties) -> np.ndarray:
    """(C,) per-test speed percentile of the first `candidates` rows among the rest (the
    references), from the log ratios: foundation.ranking's graded share of each
    reference faster, a timed-out candidate scoring 100."""
    to_references = ratios[:candidates, candidates:]  # log(candidate / reference)
    with np.errstate(over="ignore"):
        share = faster_share(np.ones_like(to_references), np.exp(to_references), ties)
    share = np.where(np.isnan(to_references), 0.5, share)  # both timed out: a tie
    values = 100.0 * share.mean(axis=1)
    timed_out = np.all(np.isposinf(to_references) | np.isnan(to_references), axis=1)
    return np.where(timed_out, 100.0, values)


ESTIMATORS = ("lowest", "median", "paired", "round_normalized")
TIE_RULES = [
    Ties(0.10, 0.0),  # a hard band (issue 14's first ranking)
    Ties(0.0, 0.15),  # graded from equal costs to 15% (the rule before this one)
    Ties(0.0, 0.30),
    Ties(0.04, 0.20),
    Ties(0.06, 0.12),
    Ties(0.06, 0.20),
    Ties(0.06, 0.30),
    Ties(0.08, 0.20),
    Ties(0.08, 0.30),
    Ties(0.10, 0.20),
    Ties(0.10, 0.30),
]


def jitter_and_noise(
    samples: dict, estimator: str, ties: Ties, rounds: int | None = None
) -> tuple[list, list]:
    """Each candidate's rank jitter, and each (program, test)'s copy noise (sd of the log
    ratio to its copy over the re-measurements), from the first `rounds` rounds (all)."""
    jitters, noise = [], []
    for remeasurements in samples.values():
        names = sorted(remeasurements[0])
        candidates = [n for n in names if n.startswith(CANDIDATE)]
        order = candidates + [REFERENCE + n[len(CANDIDATE) :] for n in candidates]
        tests = len(remeasurements[0][order[0]])
        per_test = np.zeros((len(remeasurements), tests, len(candidates)))
        copy = np.zeros((len(remeasurements), tests, len(candidates)))
        for r, measured in enumerate(remeasurements):
            for t in range(tests):
                matrix = round_matrix(measured, order, t)[:, :rounds]
                ratios = log_ratios(matrix, estimator)
                per_test[r, t] = percentiles(ratios, len(candidates), ties)
                copy[r, t] = np.diag(ratios[: len(candidates), len(candidates) :])
        speed = per_test.mean(axis=1)  # (remeasure, C): the mean over the tests
        jitters += list(speed.max(axis=0) - speed.min(axis=0))
        finite = np.isfinite(copy).all(axis=0)  # (T, C): never timed out
        noise += list(np.std(copy, axis=0, ddof=1)[finite])
    return jitters, noise


def jitter_figures(jitters: list) -> dict:
    return {
        "jitter_p95": round(float(np.percentile(jitters, 95)), 2),
        "jitter_median": round(float(np.median(jitters)), 2),
        "jitter_max": round(float(np.max(jitters)), 2),
    }


def figures(samples: dict, ties: Ties, rounds: int | None) -> dict:
    results = {}
    for estimator in ESTIMATORS:
        jitters, noise = jitter_and_noise(samples, estimator, ties, rounds)
        results[estimator] = {
            "copy_noise_pct": round(100 * float(np.median(noise)), 2),
            **jitter_figures(jitters),
        }
        print(estimator, results[estimator], file=sys.stderr)
    rules = {}
    for rule in TIE_RULES:
        rules[f"band {rule.band:g}, ramp {rule.ramp:g}"] = jitter_figures(
            jitter_and_noise(samples, "lowest", rule, rounds)[0]
        )
        print("lowest,", rule, rules[f"band {rule.band:g}, ramp {rule.ramp:g}"], file=sys.stderr)
    results["lowest_by_tie_rule"] = rules
    return results


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--problems", nargs="+", default=["sort-numbers", "big-sum"])
    parser.add_argument("--remeasure", type=int, default=5)
    parser.add_argument("--rounds", type=int, default=10)
    parser.add_argument("--tie-band", type=float, default=DEFAULT_TIE_BAND)
    parser.add_argument("--tie-ramp", type=float, default=DEFAULT_TIE_RAMP)
    parser.add_argument("--loaded", action="store_true", help="measure beside 2 busy processes")
    parser.add_argument(
        "--first-rounds", type=int, help="rank from the first K rounds only (timing_repeats K)"
    )
    parser.add_argument("--samples", type=Path, help="samples of an earlier run, not measured")
    args = parser.parse_args()
    if args.remeasure < 2 or args.rounds < 1:
        parser.error("--remeasure must be at least 2 and --rounds at least 1")
    if args.first_rounds is not None and args.first_rounds < 1:
        parser.error("--first-rounds must be at least 1")
    if not 0 <= args.tie_band < 1:
        parser.error("--tie-band must be a share in [0, 1)")
    if not 0 <= args.tie_ramp <= 4:
        parser.error("--tie-ramp must be a share in [0, 4]")
    if args.samples and not args.samples.is_file():
        parser.error(f"--samples: no file {args.samples} (a run without --samples writes one)")
    if args.samples:
        samples = json.loads(args.samples.read_text())
    else:
        with burners(2 if args.loaded else 0):
            samples = collect(args.problems, args.remeasure, args.rounds)
        written = ROOT / "var" / "bench" / f"rank_samples{'_loaded' if args.loaded else ''}.json"
        written.parent.mkdir(parents=True, exist_ok=True)
        written.write_text(json.dumps(samples))
        print(f"samples: {written}", file=sys.stderr)
    report(
        "rank_estimators",
        {
            "problems": list(samples),
            "condition": "loaded" if args.loaded else "idle",
            "tie_band": args.tie_band,
            "tie_ramp": args.tie_ramp,
            "first_rounds": args.first_rounds,
            **figures(samples, Ties(args.tie_band, args.tie_ramp), args.first_rounds),
        },
    )


if __name__ == "__main__":
    main()
