"""Shared set-up for the benchmarks: a fresh PostgreSQL database and a real daphne on it.

Each benchmark prints one JSON line of figures; docs/benchmarks.md records them with the
command, date and machine.
"""

from __future__ import annotations

import contextlib
import json
import os
import platform
import signal
import socket
import subprocess
import sys
import time
from datetime import UTC, datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from execution.load import busy_load  # noqa: E402
from scripts.readiness import free_port  # noqa: E402  (the checkout's root, just put in reach)

BENCH_DB = os.environ.get("BENCH_DATABASE_URL", "postgres://postgres@127.0.0.1:5432/codeopt_bench")


def bench_env(**extra: str) -> dict[str, str]:
    env = dict(os.environ)
    env.setdefault("SECRET_KEY", "benchmark-only")
    env.update(
        DATABASE_URL=BENCH_DB,
        CODEOPT_VAR_DIR=str(ROOT / "var" / "bench"),
        DEBUG="0",
        DJANGO_SETTINGS_MODULE="codeopt_site.settings",
    )
    env.update(extra)
    return env


def setup_django(**extra: str) -> None:
    os.environ.update(bench_env(**extra))
    import django

    django.setup()


def recreate_database() -> None:
    """Drop and create the benchmark database, then migrate it."""
    import psycopg

    name = BENCH_DB.rsplit("/", 1)[1]
    admin = BENCH_DB.rsplit("/", 1)[0] + "/postgres"
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        conn.execute(f'CREATE DATABASE "{name}"')
    subprocess.run(
        [sys.executable, "manage.py", "migrate", "--noinput", "-v", "0"],
        cwd=ROOT,
        env=bench_env(),
        check=True,
    )


def make_owner():
    """A user in a team with an API token; returns (user, team, token key)."""
    from django.contrib.auth.models import User
    from rest_framework.authtoken.models import Token

    from foundation.tenancy import Team

    user = User.objects.create_user("bench", password="bench-password")
    team = Team.objects.create(name="bench")
    team.members.add(user)
    return user, team, Token.objects.create(user=user).key


def on_cluster(cluster, slugs: list[str]) -> tuple[str, dict]:
    """Django in this process on a scripts/cluster.py cluster's database and broker (direct,
    no proxy), the built-in reward configurations and the pack problems `slugs` stored
    there: (the token of a user "bench" in team "bench", {slug: BuiltProblem})."""
    os.environ.update(
        DATABASE_URL=cluster.database_url(),
        CELERY_BROKER_URL=cluster.broker_url(),
        REDIS_URL=cluster.channel_url,
        REDIS_CHANNEL_PREFIX=cluster.tag,
        SECRET_KEY="benchmark-only",
        CODEOPT_VAR_DIR=str(cluster.folder / "bench"),
        DJANGO_SETTINGS_MODULE="codeopt_site.settings",
    )
    import django

    django.setup()
    from scoring_service import store_problems

    from rewards.services import do_load_configs

    do_load_configs()
    token = make_owner()[2]
    return token, store_problems(slugs)


@contextlib.contextmanager
def daphne(**extra: str):
    port = free_port()
    log = open(ROOT / "var" / "bench-daphne.log", "w")
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "daphne",
            "-b",
            "127.0.0.1",
            "-p",
            str(port),
            "--access-log",
            os.devnull,
            "codeopt_site.asgi:application",
        ],
        cwd=ROOT,
        env=bench_env(**extra),
        stdout=log,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
                break
            except OSError:
                time.sleep(0.1)
        else:
            raise RuntimeError("daphne did not start; see var/bench-daphne.log")
        yield f"http://127.0.0.1:{port}"
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
        proc.wait(timeout=15)
        log.close()


def post_points(url: str, token: str, run_id: int, step: int, keys: list[str]) -> None:
    """POST one step's points (value step/100 for every key) to the run's metrics API."""
    import urllib.request

    body = json.dumps({"points": [{"step": step, "key": k, "value": step * 0.01} for k in keys]})
    request = urllib.request.Request(
        f"{url}/api/runs/{run_id}/metrics/",
        data=body.encode(),
        method="POST",
        headers={"Authorization": f"Token {token}", "Content-Type": "application/json"},
    )
    with urllib.request.urlopen(request, timeout=30) as response:
        response.read()


@contextlib.contextmanager
def burners(count: int):
    """`count` busy processes (the benchmarks' bounded load: one per core), stopped after:
    the product's load (execution.load.busy_load), which manage.py noise_by_mode
    starts too."""
    with busy_load(count):
        yield


def machine() -> str:
    python = f"{platform.python_implementation()} {platform.python_version()}"
    return f"{platform.node()} {os.cpu_count()} CPUs, {python}"


def report(name: str, figures: dict) -> None:
    line = {
        "benchmark": name,
        "date": datetime.now(UTC).isoformat(timespec="seconds"),
        "machine": machine(),
        **figures,
    }
    print(json.dumps(line))
