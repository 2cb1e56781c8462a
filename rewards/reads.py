"""Read helpers for the Rewards page: plain dicts for templates and JSON."""

from __future__ import annotations

from django.db.models import Count

from foundation import inputs
from foundation.jobs import job_table_row
from rewards.models import RewardConfig, RewardRanking, Simulation

_FILTER_PHRASES = {
    "max_mean_reference_s": lambda seconds: f"tests with mean human time < {1000 * seconds:g} ms",
    "max_input_chars": lambda chars: f"input ≤ {chars:,} chars",
    "max_output_chars": lambda chars: f"output ≤ {chars:,} chars",
    "fastest_tests_fraction": lambda fraction: f"fastest {100 * fraction:g}% of tests",
    "time_limit_s": lambda seconds: f"limit {seconds:g} s per test",
    "limit_percentile": lambda percentile: f"limit at the p{percentile:g} human time",
}
"""The phrase of each test filter and limit a configuration sets (None: not set), in the
order the summary lists them."""


def design_summary(fields: dict) -> list[str]:
    """One short phrase per stage of the design space the configuration touches."""
    parts = [
        phrase(fields[name])
        for name, phrase in _FILTER_PHRASES.items()
        if fields.get(name) is not None
    ]
    combination = fields.get("combination", "binary")
    if combination == "weighted":
        parts.append(
            f"weighted {fields.get('correctness_weight', 0.5):g}·correct + "
            f"{fields.get('speed_weight', 0.5):g}·speed"
        )
    else:
        bar = fields.get("speed_bar")
        speed = "within limits" if bar is None else f"top {bar:g}%"
        extra = (
            f", slow-correct {fields.get('slow_correct_reward', 0):g}"
            if combination == "graded"
            else ""
        )
        parts.append(f"{combination}: {speed}{extra}")
    if not fields.get("gate_on_correctness", True) and combination in ("weighted", "alternating"):
        parts.append("ungated (speed credit without correctness)")
    return parts


def verdict(result: dict | None) -> tuple[str, str]:
    """(class, text): what the selected simulation says of a configuration."""
    if result is None:
        return "none", "not in this simulation"
    if result["flags"]:
        return "discard", "discard: " + ", ".join(result["flags"])
    if result["warnings"]:
        return "care", "use with care: " + "; ".join(result["warnings"])
    return "worth", "worth training"


def config_rows(
    selected: Simulation | None, user, ranking: RewardRanking | None = None
) -> list[dict]:
    """The table of configurations, each with whether `user` may change it and its place in
    `ranking` (None: not ranked there)."""
    results = {r["name"]: r for r in selected.results} if selected else {}
    ranked = {score["name"]: score for score in ranking.scores} if ranking else {}
    mine = set(user.teams.values_list("pk", flat=True))
    rows = []
    configs = RewardConfig.objects.annotate(run_count=Count("runs")).select_related("team")
    for config in configs:
        css, text = verdict(results.get(config.name))
        rows.append(
            {
                "config": config,
                "design": design_summary(config.fields),
                "verdict_class": css,
                "verdict": text,
                "run_count": config.run_count,
                "may_change": user.is_staff or config.team_id in mine,
                "ranked": ranked.get(config.name),
                "winner": bool(ranking and ranking.winner == config.name),
            }
        )
    return rows


def simulation_row(simulation: Simulation, beats: dict | None = None) -> dict:
    """`beats`: jobs.heartbeats(), read once for a table (a dead worker's job: "lost")."""
    return {
        **job_table_row(simulation, beats),
        "started_by": simulation.started_by,
        "configs": len(simulation.configs),
        "noise_cvs": simulation.noise_cvs,
        "group_size": simulation.group_size,
        "problems": len(simulation.problems_used) if simulation.status == "done" else None,
        "rank_against": simulation.rank_against,
        "wall_seconds": simulation.wall_seconds,
    }


def selected_simulation(simulation_id: str | None) -> Simulation | None:
    simulations = Simulation.objects.filter(status=Simulation.Status.DONE)
    if simulation_id:
        return simulations.filter(pk=inputs.record_id("simulation", simulation_id)).first()
    # the newest that ranks against the references (a negative control is chosen explicitly)
    return simulations.filter(rank_against="references").first()


def simulation_chart_data(simulation: Simulation) -> dict:
    return {
        "id": simulation.pk,
        "noise_cvs": simulation.noise_cvs,
        "group_size": simulation.group_size,
        "rank_against": simulation.rank_against,
        "results": simulation.results,
    }


def latest_ranking() -> RewardRanking | None:
    """The newest ranking of the design space (rewards.design_ranking)."""
    return RewardRanking.objects.first()
