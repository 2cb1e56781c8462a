"""The seam every background job goes through (foundation.jobs): sent by task name after
commit on the routed queue, one row shape, claimed once, progress on the row."""

from __future__ import annotations

import pytest
from django.apps import apps
from django.db import transaction

from codeopt_site.celery import app
from foundation.jobs import Job, Progress, claim, finish
from foundation.sending import enqueue
from rewards.models import Simulation
from rewards.services import do_run_simulation
from timing.models import TimingJob


def test_every_model_with_a_job_status_is_a_job():
    """The status/progress/error/timestamps boilerplate exists once: a model that carries a
    job's status without inheriting Job would be a second copy."""
    copies = [
        model.__name__
        for model in apps.get_models()
        if {"status", "finished_at"} <= {f.name for f in model._meta.get_fields()}
        and not issubclass(model, Job)
        and model._meta.app_label != "runs"  # a Run's status is its lifecycle, not a job's
    ]
    assert copies == []


def test_every_task_named_by_a_service_is_registered_and_routed():
    app.loader.import_default_modules()
    routes = app.conf.task_routes
    for name, queue in [
        ("timing.run_timing_job", "timing"),
        ("problems.run_dataset_build", "timing"),
        ("scoring.score_rollouts", "timing"),
        ("scoring.score_part", "timing"),
        ("training.train", "gpu"),
        ("evaluations.evaluate", "eval"),
        ("judges.judge", "judge"),
    ]:
        assert name in app.tasks, name
        assert routes[name]["queue"] == queue
    assert "rewards.run_simulation" in app.tasks  # the default queue
    assert "workers.replay_synthetic_run" in app.tasks


def test_a_task_is_named_after_its_app_and_a_message_under_its_former_name_still_runs(alice):
    """The tasks of judges, rewards, problems and evaluations were all `workers.*`: a message
    queued under the former name before an upgrade runs the same job; the rescue and the
    routes know the new name only."""
    from workers.process.rescue import _job_tasks

    app.loader.import_default_modules()
    renamed = {
        "workers.judge": "judges.judge",
        "workers.run_reward_simulation": "rewards.run_simulation",
        "workers.run_dataset_build": "problems.run_dataset_build",
        "workers.evaluate": "evaluations.evaluate",
    }
    for former, name in renamed.items():
        assert name.split(".")[0] == app.tasks[name].run.__module__.split(".")[0]
        assert app.tasks[former].__wrapped__.__code__ is app.tasks[name].__wrapped__.__code__
        assert app.tasks[former].acks_late == app.tasks[name].acks_late
        assert former not in app.conf.task_routes
    rescued = [task for _, task in _job_tasks(app)]
    assert not set(renamed) & set(rescued) and set(renamed.values()) <= set(rescued)

    queued = Simulation.objects.create(configs=[], noise_cvs=[0.0])  # no problem built yet
    app.tasks["workers.run_reward_simulation"].apply(args=[queued.pk])  # as a worker runs it
    queued.refresh_from_db()
    assert queued.status == "failed" and queued.error.startswith("ValueError: problems:")


@pytest.mark.django_db(transaction=True)
def test_a_job_is_sent_only_once_its_transaction_commits_and_never_after_a_rollback(enqueued):
    with transaction.atomic():
        enqueue("workers.ping")
        assert enqueued == []  # the row would not be visible to the worker yet
    assert enqueued == [("workers.ping", [], None)]
    with pytest.raises(RuntimeError), transaction.atomic():
        enqueue("judges.judge", 1)
        raise RuntimeError("rolled back")
    assert enqueued == [("workers.ping", [], None)]


@pytest.mark.django_db
def test_a_claimed_job_runs_once_and_a_job_left_running_starts_over(alice):
    job = TimingJob.objects.create(owner=alice, package_dir="/p", source="x", language="python")
    first = claim(TimingJob, job.pk, "w1", stage="starting")
    assert first.status == "running" and first.worker == "w1" and first.attempts == 1
    # its worker died: the message comes back, the job restarts on another worker
    again = claim(TimingJob, job.pk, "w2")
    assert again.worker == "w2" and again.attempts == 2 and again.started_at is not None
    tracker = Progress(again, total=4)
    tracker.advance(stage="one of four")
    job.refresh_from_db()
    assert (job.progress_done, job.progress_total, job.stage) == (1, 4, "one of four")
    assert job.progress == 0.25
    finish(again, result={"ok": True})
    job.refresh_from_db()
    assert job.status == "done" and job.progress_done == 4 and job.finished_at is not None
    assert claim(TimingJob, job.pk, "w3") is None  # delivered again after it ended


@pytest.mark.django_db
def test_a_simulation_delivered_again_after_it_ended_is_not_run_again():
    simulation = Simulation.objects.create(configs=[], noise_cvs=[0.0], status="done")
    assert do_run_simulation(simulation.pk).status == "done"
    failed = Simulation.objects.create(configs=[], noise_cvs=[0.0])
    with pytest.raises(ValueError, match="problems: none has stored runtimes"):
        do_run_simulation(failed.pk)
    failed.refresh_from_db()
    assert failed.status == "failed" and failed.error.startswith("ValueError: problems:")
    assert do_run_simulation(failed.pk).status == "failed"  # not retried by a re-delivery
