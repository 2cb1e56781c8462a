"""Read helpers for the Rewards page: plain dicts for templates and JSON."""

from __future__ import annotations

from django.db.models import Count

from codeopt_site import inputs
from codeopt_site.jobs import shown_status
from rewards.models import RewardConfig, Simulation


def design_summary(fields: dict) -> list[str]:
    """One short phrase per stage of the design space the configuration touches."""
    parts = []
    if fields.get("max_mean_reference_s") is not None:
        parts.append(f"tests with mean human time < {1000 * fields['max_mean_reference_s']:g} ms")
    if fields.get("max_input_chars") is not None:
        parts.append(f"input ≤ {fields['max_input_chars']:,} chars")
    if fields.get("max_output_chars") is not None:
        parts.append(f"output ≤ {fields['max_output_chars']:,} chars")
    if fields.get("fastest_tests_fraction") is not None:
        parts.append(f"fastest {100 * fields['fastest_tests_fraction']:g}% of tests")
    if fields.get("time_limit_s") is not None:
        parts.append(f"limit {fields['time_limit_s']:g} s per test")
    if fields.get("limit_percentile") is not None:
        parts.append(f"limit at the p{fields['limit_percentile']:g} human time")
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


def config_rows(selected: Simulation | None, user) -> list[dict]:
    """The table of configurations, each with whether `user` may change it."""
    results = {r["name"]: r for r in selected.results} if selected else {}
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
            }
        )
    return rows


def simulation_row(simulation: Simulation, beats: dict | None = None) -> dict:
    """`beats`: jobs.heartbeats(), read once for a table (a dead worker's job: "lost")."""
    status, error = shown_status(simulation, beats)
    return {
        "id": simulation.pk,
        "created_at": simulation.created_at.isoformat(),
        "started_by": simulation.started_by,
        "status": status,
        "progress": simulation.progress,
        "stage": simulation.stage,
        "configs": len(simulation.configs),
        "noise_cvs": simulation.noise_cvs,
        "group_size": simulation.group_size,
        "problems": len(simulation.problems_used) if simulation.status == "done" else None,
        "rank_against": simulation.rank_against,
        "wall_seconds": simulation.wall_seconds,
        "error": error[:300],
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
