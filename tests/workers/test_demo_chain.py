"""The demo never dies quietly (issue 17, item 6): a failed dataset build is retried, then
reported with its reason; the stages that need it say why they cannot run; the others go
on. Each stage is printed and kept for the run list's "Demo" panel."""

from __future__ import annotations

from pathlib import Path

import pytest
from django.test import Client

from problems import services as problem_services
from problems.models import DatasetBuild
from tests.problems.test_dataset_build import FAST_CONFIG, import_sum
from workers.demo import DemoStatus, do_run_demo_chain, read_demo_status

pytestmark = pytest.mark.django_db(transaction=True)
ROOT = Path(__file__).resolve().parents[2]
RECIPES = [("demo-paper", ROOT / "scripts" / "demo_train.toml")]


@pytest.fixture
def builds_that(monkeypatch):
    """The worker's side of a queued build, inline: `outcomes` says, build by build, whether
    it fails ("fail": as a sandbox that could not start) or runs (the real build)."""
    outcomes: list[str] = []
    sent: list[tuple[str, list]] = []

    def send(task, args, queue):
        sent.append((task, args))
        if task == "problems.run_dataset_build":
            if outcomes.pop(0) == "fail":
                DatasetBuild.objects.filter(pk=args[0]).update(
                    status="failed", error="SandboxError: bwrap could not start"
                )
            else:
                problem_services.do_run_build(args[0])

    monkeypatch.setattr("foundation.sending.send", send)
    return outcomes, sent


def chain(tmp_path, **kwargs):
    lines: list[str] = []
    status = DemoStatus(tmp_path / "demo-status.json", "http://demo", out=lines.append)
    result = do_run_demo_chain(
        user="demo", problems=["sum"], build_settings=FAST_CONFIG.as_dict(),
        recipes=RECIPES, status=status, poll_s=0.01, wait_s=60, **kwargs,
    )  # fmt: skip
    return result, lines, read_demo_status(tmp_path / "demo-status.json")


@pytest.fixture
def demo_user(make_user):
    return make_user("demo", "demo")


def test_a_build_that_keeps_failing_is_reported_and_the_rest_says_why(
    tmp_path, builds_that, demo_user
):
    outcomes, sent = builds_that
    import_sum(tmp_path)
    outcomes += ["fail", "fail"]
    result, lines, stored = chain(tmp_path)
    assert result == {
        "dataset build": "failed", "reward simulation": "skipped", "training demo-paper": "skipped"
    }  # fmt: skip
    assert [t for t, _ in sent] == ["problems.run_dataset_build"] * 2  # retried once
    assert any("retrying" in line and "bwrap could not start" in line for line in lines)
    (simulation,) = [row for row in stored if row["stage"] == "reward simulation"]
    assert "the dataset build failed: SandboxError: bwrap could not start" in simulation["detail"]
    assert lines[-1].startswith("  demo: training demo-paper: skipped (no built problem")


def test_a_build_that_fails_once_is_retried_and_the_chain_goes_on(
    tmp_path, builds_that, demo_user, settings
):
    from rewards.services import do_load_configs

    outcomes, sent = builds_that
    import_sum(tmp_path)
    do_load_configs()
    outcomes += ["fail", "run"]
    result, lines, stored = chain(tmp_path)
    assert result["dataset build"] == "done" and result["reward simulation"] == "queued"
    assert result["training demo-paper"] == "queued"
    tasks = [t for t, _ in sent]
    assert tasks.count("problems.run_dataset_build") == 2 and "training.train" in tasks
    (training,) = [row for row in stored if row["stage"] == "training demo-paper"]
    assert training["url"].startswith("/runs/")
    assert any(line.endswith(f"http://demo{training['url']}") for line in lines)
    # the run list shows the panel
    settings.VAR_DIR = tmp_path
    client = Client()
    client.force_login(demo_user)
    page = client.get("/").content.decode()
    assert 'id="demo-status"' in page and 'data-stage="training demo-paper"' in page
    # the panel shows what the run and the simulation are now, not what the chain saw
    from rewards.models import Simulation
    from runs.models import Run

    run = Run.objects.get(pk=int(training["url"].split("/")[2]))
    Run.objects.filter(pk=run.pk).update(status="running")
    Simulation.objects.update(status="done")
    now = {row["stage"]: row["status"] for row in read_demo_status(tmp_path / "demo-status.json")}
    assert now["training demo-paper"] == "running" and now["reward simulation"] == "done"
    assert now["dataset build"] == "done"  # the chain's own word: it waited for the build
