"""The demo's set-up commands: idempotent user/team/token, a labelled run queued for the worker."""

from __future__ import annotations

import pytest
from django.core.management import call_command
from rest_framework.authtoken.models import Token

from runs.models import Run

pytestmark = pytest.mark.django_db


def test_demo_setup_is_idempotent_and_prints_the_login(capsys):
    call_command("demo_setup", url="http://127.0.0.1:9999")
    call_command("demo_setup", url="http://127.0.0.1:9999")
    out = capsys.readouterr().out
    assert "http://127.0.0.1:9999/" in out and "demo / demo-password" in out
    assert Token.objects.filter(user__username="demo").count() == 1


def test_start_demo_run_queues_a_labelled_run_and_stops_the_stale_one(
    enqueued, settings, tmp_path, django_capture_on_commit_callbacks
):
    settings.VAR_DIR = tmp_path
    settings.CODEOPT_PACKAGE_ROOTS = [tmp_path / "packages"]  # the default under this VAR_DIR
    call_command("demo_setup")
    with django_capture_on_commit_callbacks(execute=True):
        call_command("start_demo_run", url="http://x", steps=10)
    first = Run.objects.get()
    first.status = "running"
    first.save()
    with django_capture_on_commit_callbacks(execute=True):
        call_command("start_demo_run", url="http://x", steps=10)
    first.refresh_from_db()
    assert first.status == "stopped"
    newest = Run.objects.order_by("-id").first()
    assert "synthetic" in newest.tags and "SYNTHETIC REPLAY" in newest.notes
    replays = [args for task, args, _ in enqueued if task == "workers.replay_synthetic_run"]
    assert replays[-1] == [newest.pk, "http://x", 10, 0.5]
    from timing.models import TimingJob

    job = TimingJob.objects.order_by("-created_at").first()
    assert ("timing.run_timing_job", [str(job.pk)], None) in enqueued
    assert job.kind == "jitter" and job.modes == "wall,cpu,instructions"
    assert job.package_dir == str(tmp_path / "packages" / "demo-sum")
    assert (tmp_path / "packages" / "demo-sum" / "problem.yaml").exists()
