"""A job delivered while its database is unreachable is not acknowledged and lost: a real
worker hands the message back (foundation.sending.JobTask) and claims the job once the
database is back. The database is cut under a running worker: SQLite by removing the link
its path goes through, PostgreSQL by cutting the fault proxy (scripts/faultproxy.py) the
worker connects through."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from django.db import connection

from codeopt_site.celery import app
from rewards.models import Simulation
from scripts.faultproxy import FaultProxy
from scripts.readiness import celery_worker_argv
from tests.conftest import Process, subprocess_env, wait_for_status, wait_until
from timing.models import TimingJob

pytestmark = pytest.mark.django_db(transaction=True)

HANDED_BACK = "handed back to the broker"


class SqliteLink:
    """The worker opens the test database through a symlink to its folder: removing the
    link makes every new connection fail ("unable to open database file")."""

    def __init__(self, database: Path, folder: Path):
        self.target = database.parent
        self.link = folder / "database-link"
        self.url = f"sqlite:///{self.link / database.name}"
        self.restore()

    def cut(self) -> None:
        self.link.unlink()

    def restore(self) -> None:
        self.link.symlink_to(self.target, target_is_directory=True)

    def close(self) -> None:
        if self.link.is_symlink():
            self.link.unlink()


@pytest.fixture
def database_cut(tmp_path):
    """A way for a worker to reach the test database that the test can cut and restore."""
    settings_dict = connection.settings_dict
    if connection.vendor == "sqlite":
        cut = SqliteLink(Path(settings_dict["NAME"]), tmp_path)
    else:
        user = settings_dict.get("USER") or "postgres"
        host = settings_dict.get("HOST") or "127.0.0.1"
        port = int(settings_dict.get("PORT") or 5432)
        cut = FaultProxy(host, port, name="PostgreSQL")
        cut.url = f"postgres://{user}@127.0.0.1:{cut.port}/{settings_dict['NAME']}"
    yield cut
    cut.close()


@pytest.fixture
def worker_through(database_cut, tmp_path):
    """A real worker on the configured broker, reaching the database through `database_cut`,
    consuming a queue of its own (no other worker takes its messages)."""
    queue = f"hand-back-{os.getpid()}"
    env = subprocess_env(DATABASE_URL=database_cut.url, CODEOPT_STARTUP_TIMEOUT_S="2")
    argv = celery_worker_argv("--pool", "threads", "--concurrency", "1", "-Q", queue, "--purge")
    argv += ["-n", f"hand-back-{os.getpid()}@%h"]
    proc = Process(argv, env, tmp_path / "worker.log")
    wait_until(lambda: "ready." in proc.output() or not proc.alive(), 90, "the worker to start")
    if not proc.alive():
        raise AssertionError("celery worker exited:\n" + proc.output())
    yield proc, queue
    proc.stop()


def a_timing_job(alice, tmp_path) -> TimingJob:
    """A measurement of a package that is not there: once claimed it fails at once, which
    is all this test needs to see."""
    return TimingJob.objects.create(
        owner=alice,
        package_dir=str(tmp_path / "no-such-package"),
        source="print(1)",
        language="python",
    )


def a_simulation(alice, tmp_path) -> Simulation:
    """A simulation on a database without stored runtimes: once claimed it fails at once."""
    return Simulation.objects.create(started_by="hand-back test")


@pytest.mark.parametrize(
    ("task", "make_job"),
    [
        # acknowledged when it ends: the message is rejected and requeued
        ("timing.run_timing_job", a_timing_job),
        # acknowledged on receipt: the task is sent again
        ("rewards.run_simulation", a_simulation),
    ],
)
def test_a_job_delivered_while_the_database_is_unreachable_runs_once_it_is_back(
    task, make_job, database_cut, worker_through, alice, tmp_path
):
    worker, queue = worker_through
    job = make_job(alice, tmp_path)
    database_cut.cut()
    args = [str(job.pk) if isinstance(job, TimingJob) else job.pk]
    delivery = app.send_task(task, args=args, queue=queue).id

    def outcome() -> str | None:
        """Celery's line on how the delivery ended (rejected, retried, failed...)."""
        lines = worker.output().splitlines()
        return next((x for x in lines if f"[{delivery}]" in x and "received" not in x), None)

    wait_until(outcome, 60, "the worker to take the job while the database is cut")
    job.refresh_from_db()
    assert job.status == "queued"  # unclaimed: the database could not be reached

    database_cut.restore()
    wait_for_status(worker, job, ("failed", "done"), 60, "the job to be claimed once it is back")
    assert job.worker.startswith(f"hand-back-{os.getpid()}@")
    assert "no-such-package" in job.error or "stored runtimes" in job.error  # its own failure
    if isinstance(job, TimingJob):
        assert job.attempts == 1  # claimed once: the deliveries during the cut claimed nothing
    line = next(x for x in worker.output().splitlines() if HANDED_BACK in x)
    assert "DATABASE_URL=" in line and "To fix:" in line
