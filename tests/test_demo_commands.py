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
    monkeypatch, settings, tmp_path
):
    settings.VAR_DIR = tmp_path
    from workers import tasks

    queued = []
    monkeypatch.setattr(tasks.replay_synthetic_run, "delay", lambda *a, **k: queued.append((a, k)))
    call_command("demo_setup")
    call_command("start_demo_run", url="http://x", steps=10)
    first = Run.objects.get()
    first.status = "running"
    first.save()
    call_command("start_demo_run", url="http://x", steps=10)
    first.refresh_from_db()
    assert first.status == "stopped"
    newest = Run.objects.order_by("-id").first()
    assert "synthetic" in newest.tags and "SYNTHETIC REPLAY" in newest.notes
    assert queued[-1] == ((newest.pk, "http://x"), {"total_steps": 10, "interval": 0.5})
    from workers.models import TimingJob

    job = TimingJob.objects.order_by("-created_at").first()
    assert job.kind == "jitter" and job.modes == "wall,cpu,instructions"
    assert (tmp_path / "demo-packages" / "sum" / "problem.yaml").exists()
