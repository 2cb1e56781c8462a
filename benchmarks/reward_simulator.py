"""Offline reward simulator throughput (issue 5): 200 configurations x 1,000 problems x 20
references x 3 noise levels, target under 10 s on this machine.

Set-up:
- 1,000 synthetic problems, 20 references and 8 tests each: per test a base time drawn
  log-uniformly in [5 ms, 500 ms]; reference k takes base x speed_k x a 3% per-run jitter,
  speed_k log-uniform over a problem-specific 2x-40x spread; about 2% of runs time out and
  1% are missing, as in stored build runtimes;
- 200 configurations: the design space of the paper, section 3 (filters x limits x bars x
  combinations), see `design_space()`;
- noise CVs 0, 0.05 and 0.2; group size 16.

The figure is wall time of `simulate` (problem batch built from the runtimes included), best
of `--rounds`, and the per-configuration-and-level cost. Baseline in the same run: the
one-problem path (`engine.rewards` called per problem, configuration and noise level, as the
first simulator did) on 10 of the configurations at one noise level, scaled linearly to the
full grid.

    .venv/bin/python benchmarks/reward_simulator.py [--problems 1000] [--rounds 3]
"""

from __future__ import annotations

import argparse
import itertools
import resource
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from _harness import report  # noqa: E402

from rewards.engine import ProblemRuntimes, RewardConfig, rewards  # noqa: E402
from rewards.simulator import noisy, simulate  # noqa: E402


def synthetic_problems(count: int, references: int, tests: int, seed: int = 1) -> list:
    rng = np.random.default_rng(seed)
    problems = []
    for _ in range(count):
        base = np.exp(rng.uniform(np.log(0.005), np.log(0.5), size=tests))
        spread = rng.uniform(np.log(2), np.log(40))
        speed = np.exp(rng.uniform(0, spread, size=references))
        costs = speed[:, None] * base[None, :] * rng.lognormal(0, 0.03, (references, tests))
        costs[rng.random(costs.shape) < 0.02] = np.inf
        costs[rng.random(costs.shape) < 0.01] = np.nan
        problems.append(
            ProblemRuntimes(
                costs,
                rng.integers(10, 2_000_000, size=tests),
                rng.integers(1, 200_000, size=tests),
            )
        )
    return problems


def design_space() -> list[RewardConfig]:
    """200 points: 5 test filters x 4 limits x 10 (bar, combination) choices."""
    filters = [
        {},
        {"max_mean_reference_s": 0.1},
        {"fastest_tests_fraction": 0.5},
        {"max_input_chars": 500_000},
        {"max_output_chars": 50_000, "fastest_tests_fraction": 0.75},
    ]
    limits = [{}, {"time_limit_s": 1.0}, {"limit_percentile": 30}, {"limit_percentile": 50}]
    scoring = [
        {"speed_bar": 30},
        {"speed_bar": 50},
        {"speed_bar": 10},
        {"speed_bar": None},
        {"speed_bar": 30, "combination": "graded", "slow_correct_reward": -0.5},
        {"speed_bar": 50, "combination": "graded"},
        {"combination": "weighted"},
        {"combination": "weighted", "gate_on_correctness": False, "speed_weight": 0.8},
        {"speed_bar": 30, "combination": "alternating"},
        {"speed_bar": 50, "combination": "alternating"},
    ]
    return [
        RewardConfig(name=f"grid-{index:03d}", **f, **lim, **s)
        for index, (f, lim, s) in enumerate(itertools.product(filters, limits, scoring))
    ]


def per_problem_seconds(configs, problems, cv: float) -> float:
    """Wall time of the one-problem path for `configs` at one noise level."""
    rng = np.random.default_rng(0)
    started = time.perf_counter()
    for config in configs:
        for problem in problems:
            measured = noisy(problem.reference_costs, cv, rng)
            correct = np.ones(len(measured), dtype=bool)
            rewards(config, problem, measured, correct)
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--problems", type=int, default=1000)
    parser.add_argument("--references", type=int, default=20)
    parser.add_argument("--tests", type=int, default=8)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    problems = synthetic_problems(args.problems, args.references, args.tests)
    configs = design_space()
    noise = (0.0, 0.05, 0.2)
    times, results = [], None
    for _ in range(args.rounds):
        started = time.perf_counter()
        results = simulate(configs, problems, noise_cvs=noise, group_size=16)
        times.append(time.perf_counter() - started)
    best = min(times)
    sample = configs[:: len(configs) // 10][:10]
    baseline = per_problem_seconds(sample, problems, 0.05)
    baseline_full = baseline * len(configs) * len(noise) / len(sample)
    report(
        "reward_simulator",
        {
            "configs": len(configs),
            "problems": args.problems,
            "references": args.references,
            "tests": args.tests,
            "noise_levels": len(noise),
            "seconds_best": round(best, 2),
            "seconds_all": [round(t, 2) for t in times],
            "ms_per_config_level": round(1000 * best / (len(configs) * len(noise)), 2),
            "target_seconds": 10,
            "per_problem_path_seconds_scaled": round(baseline_full, 1),
            "per_problem_path_measured": f"{len(sample)} configs x 1 level in {baseline:.1f} s",
            "speedup": round(baseline_full / best, 1),
            "flagged": sum(r.flagged for r in results),
            # the whole process, numpy and SciPy included (Linux reports kilobytes)
            "peak_resident_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024),
        },
    )


if __name__ == "__main__":
    main()
