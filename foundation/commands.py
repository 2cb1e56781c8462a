"""What the management commands that make a job share (evaluate, judge, train): the owner
named by --user, a checked request's ValueError as the command's error, and the job run in
the foreground with its progress on stderr."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError


def user_named(username: str):
    """The user `username`; CommandError naming it when there is none."""
    user = get_user_model().objects.filter(username=username).first()
    if user is None:
        raise CommandError(f"user: no user {username!r}")
    return user


@contextmanager
def exiting_on_value_error() -> Iterator[None]:
    """A ValueError inside (a check_* service naming the field at fault) ends the command
    with its message instead of a traceback."""
    try:
        yield
    except ValueError as exc:
        raise CommandError(str(exc)) from None


def run_in_foreground(command: BaseCommand, run_job: Callable, job_id: int, **options):
    """`run_job(job_id, on_progress=..., **options)` (a do_run_* service) with its progress
    rewritten in place on the command's stderr ("[done/total] stage", the count once there
    is a total), the line ended after; returns what `run_job` returns."""

    def progress(done: int, total: int, stage: str) -> None:
        counted = f"[{done}/{total}] " if total else ""
        command.stderr.write(f"\r{counted}{stage}\x1b[K", ending="")

    result = run_job(job_id, on_progress=progress, **options)
    command.stderr.write("")
    return result
