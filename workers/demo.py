"""The demo's synthetic run: metrics streamed through the HTTP API as a trainer would send
them (make demo), labelled as a replay wherever it is shown."""

from __future__ import annotations

import json
import os
import random
import time

from django.conf import settings
from rest_framework.authtoken.models import Token

from foundation.tenancy import check_team_for_new_run
from problems import services as problem_services
from problems.models import DatasetBuild
from rewards import services as reward_services
from rewards.models import RewardConfig
from rewards.runtimes import loaded_problems
from runs import client
from runs.models import Run
from training import services as training_services
from training.config import TrainConfig
from workers.synthetic import synthetic_step


def do_replay_synthetic_run(run_id: int, api_url: str, total_steps: int, interval: float) -> int:
    """Stream the synthetic metrics of `run_id` through the HTTP API, as a trainer would.

    Going through the API (not the database) is what makes the points reach open pages in
    every deployment, the in-process channel layer included. Returns the steps sent.
    """
    run = Run.objects.select_related("owner").get(pk=run_id)
    token, _ = Token.objects.get_or_create(user=run.owner)
    metrics = client.MetricsClient(
        api_url, token.key, run_id, flush_interval=interval, spool_dir=settings.VAR_DIR / "spool"
    )
    rng = random.Random(run_id)
    try:
        for step in range(total_steps):
            metrics.log(step, synthetic_step(step, total_steps, rng))
            time.sleep(interval)
    finally:
        metrics.close(timeout=60)
    client.set_status(api_url, token.key, run_id, "finished")
    return total_steps


# --- the demo's chain: dataset build -> reward simulation -> two GRPO runs -----------------

DEMO_PROBLEMS = ("max-number", "count-vowels", "even-count")
"""What the demo builds and trains on: three easy pack problems posed as functions
(`function.yaml`), which the base model solves some of the time before any training."""


class DemoStatus:
    """What the demo's chain did, stage by stage: printed to the terminal and kept in
    `path` (JSON, rewritten whole), which the run list shows as the "Demo" panel."""

    def __init__(self, path, base_url: str = "", out=print):
        self.path, self.base_url, self.out, self.stages = path, base_url, out, {}

    def report(
        self, stage: str, status: str, detail: str = "", url: str = "", row: str = ""
    ) -> None:
        """`url`: a path of the site (the terminal shows it after the base URL); `row`: the
        object the stage made ("app.Model:pk"), whose own status the panel shows from then
        on (read_demo_status)."""
        self.stages[stage] = {
            "stage": stage, "status": status, "detail": detail, "url": url, "row": row
        }  # fmt: skip
        where = f": {self.base_url}{url}" if url else ""
        self.out(f"  demo: {stage}: {status}" + (f" ({detail})" if detail else "") + where)
        temporary = self.path.with_suffix(".tmp")
        temporary.write_text(json.dumps(list(self.stages.values()), indent=1))
        os.replace(temporary, self.path)


def read_demo_status(path) -> list[dict]:
    """The stages the demo's chain reported ([] when no demo ran here), each with the status
    its object has now (a run queued by the chain shows `running`, then `finished`), not the
    one it had when the chain reported it."""
    from django.apps import apps

    try:
        stages = json.loads(path.read_text())
    except (OSError, ValueError):
        return []
    for stage in stages:
        label, _, pk = str(stage.get("row") or "").partition(":")
        try:
            now = apps.get_model(label).objects.filter(pk=int(pk)).values_list("status", flat=True)
        except (LookupError, ValueError):
            continue
        stage["status"] = next(iter(now), "deleted")
    return stages


def do_run_demo_chain(
    *,
    user: str,
    problems: list[str],
    build_settings: dict[str, str],
    recipes: list[tuple[str, object]],
    status: DemoStatus,
    attempts: int = 2,
    wait_s: float = 1800.0,
    poll_s: float = 2.0,
) -> dict[str, str]:
    """The demo's chain after start-up, each stage going on with what can still run: the
    dataset build (queued, waited for, retried once when it fails), then, when problems have
    stored runtimes, the reward simulation and the training runs (each queued); a stage that
    cannot run says why. Returns {stage: final status}."""
    from django.contrib.auth import get_user_model

    owner = get_user_model().objects.get(username=user)
    build_error = ""
    for attempt in range(1, attempts + 1):
        config, slugs = problem_services.check_build_request(build_settings, problems)
        build = problem_services.do_create_build(config, slugs, started_by="make demo")
        status.report(
            "dataset build", "running", f"build {build.pk}, attempt {attempt} of {attempts}",
            f"/dataset/?build={build.pk}",
        )  # fmt: skip
        deadline = time.monotonic() + wait_s
        while time.monotonic() < deadline:
            build.refresh_from_db()
            if build.status in (DatasetBuild.Status.DONE, DatasetBuild.Status.FAILED):
                break
            time.sleep(poll_s)
        if build.status == DatasetBuild.Status.DONE:
            build_error = ""
            status.report("dataset build", "done", f"build {build.pk}", "/dataset/")
            break
        build_error = build.error or f"not finished after {wait_s:.0f} s"
        last = attempt == attempts
        status.report(
            "dataset build", "failed" if last else "retrying", f"build {build.pk}: {build_error}",
            f"/dataset/?build={build.pk}",
        )  # fmt: skip
    why_not = (
        f"no problem has stored reference runtimes (the dataset build failed: {build_error})"
        if build_error
        else "no problem has stored reference runtimes"
    )
    built = loaded_problems("")
    if not built:
        status.report("reward simulation", "skipped", why_not)
    else:
        try:
            configs = [row.engine_config() for row in RewardConfig.objects.order_by("name")]
            request = reward_services.check_simulation_request(configs=configs)
            simulation = reward_services.do_create_simulation(**request, started_by="make demo")
            status.report(
                "reward simulation",
                "queued",
                f"simulation {simulation.pk}",
                "/rewards/",
                f"rewards.Simulation:{simulation.pk}",
            )
        except ValueError as exc:
            status.report("reward simulation", "failed", str(exc))
    team = check_team_for_new_run(owner, None)
    ids = []
    for name, toml in recipes:
        stage = f"training {name}"
        try:
            data = TrainConfig.from_toml(toml).as_dict()
            split = "" if data["split"] == "all" else data["split"]
            # the chain's own problems, those the build kept (a database may hold others)
            data["problems"] = data["problems"] or [
                p.slug for p in loaded_problems(split) if p.slug in problems
            ]
            if not loaded_problems(split):
                missing = why_not.replace("no problem", f"no {split or 'built'} problem")
                status.report(stage, "skipped", missing)
                continue
            checked, reward = training_services.check_train_request(data)
            run = training_services.do_start_training(
                owner=owner, team=team, name=name, config=checked, reward=reward, queue=True
            )
        except ValueError as exc:
            status.report(stage, "failed", str(exc))
            continue
        ids.append(str(run.pk))
        status.report(
            stage,
            "queued",
            f"run {run.pk} on the gpu queue",
            f"/runs/{run.pk}/",
            f"runs.Run:{run.pk}",
        )
    if len(ids) > 1:
        compare = f"/runs/compare/?ids={','.join(ids)}"
        status.report("compare", "ready", "the runs side by side", compare)
    return {stage: row["status"] for stage, row in status.stages.items()}
