"""Shared fixtures: users in teams, API clients, and the real processes users run.

Backends: `make test` runs the suite on the embedded defaults (SQLite, filesystem broker,
in-process channel layer) and, in CI or with CODEOPT_TEST_SERVICES=1, again on PostgreSQL,
Redis and a Redis broker. In that second pass a missing service fails the run, never skips.
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
from pathlib import Path

import pytest
from django.conf import settings
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from execution.samples import write_sum_package
from foundation.env import redact_url
from scripts.readiness import celery_worker_argv, free_port, listening
from scripts.readiness import wait_until as poll_until

ROOT = Path(__file__).resolve().parent.parent
SERVICES_MODE = os.environ.get("CODEOPT_TEST_SERVICES") == "1"


def pytest_report_header(config):
    db = settings.DATABASES["default"]["ENGINE"].rsplit(".", 1)[-1]
    layer = settings.CHANNEL_LAYERS["default"]["BACKEND"].rsplit(".", 1)[-1]
    broker = settings.CELERY_BROKER_URL.split("://", 1)[0]
    return f"codeopt backends: database={db} channel_layer={layer} broker={broker}"


def pytest_sessionstart(session):
    # Work a killed earlier session left behind must not leak into this one.
    for leftover in ("broker/queue", "spool", "checkpoints"):
        shutil.rmtree(settings.VAR_DIR / leftover, ignore_errors=True)
    (settings.VAR_DIR / "broker" / "queue").mkdir(parents=True, exist_ok=True)
    if not SERVICES_MODE:
        return
    problems = []
    if not settings.DATABASES["default"]["ENGINE"].endswith("postgresql"):
        problems.append("DATABASE_URL does not name PostgreSQL")
    if not settings.REDIS_URL:
        problems.append("REDIS_URL is not set")
    if not settings.CELERY_BROKER_URL.startswith(("redis", "amqp", "pyamqp")):
        problems.append("CELERY_BROKER_URL names no server broker")
    for name, url in (("REDIS_URL", settings.REDIS_URL),):
        if url and not _reachable(url):
            problems.append(f"{name} {redact_url(url)} is not reachable")
    if problems:
        pytest.exit("services pass: " + "; ".join(problems), returncode=3)


BACKEND_FIXTURES = frozenset(
    {
        "db",
        "transactional_db",
        "django_db_reset_sequences",
        "django_db_serialized_rollback",
        "live_server",
        "asgi_server",
        "celery_worker_process",
    }
)
"""Fixtures that reach the database, the channel layer or the broker."""


def pytest_collection_modifyitems(config, items):
    """The services pass runs only the tests that touch a backend (a django_db mark or a
    backend fixture): the pure engine tests ran in pass 1 and would run the same again."""
    if not SERVICES_MODE:
        return
    keep, drop = [], []
    for item in items:
        touches = item.get_closest_marker("django_db") is not None or bool(
            BACKEND_FIXTURES & set(getattr(item, "fixturenames", ()))
        )
        (keep if touches else drop).append(item)
    if drop:
        config.hook.pytest_deselected(items=drop)
        items[:] = keep


def _reachable(url: str) -> bool:
    from urllib.parse import urlparse

    parsed = urlparse(url)
    try:
        with socket.create_connection((parsed.hostname, parsed.port or 6379), timeout=2):
            return True
    except OSError:
        return False


# --- background jobs ------------------------------------------------------------------------


@pytest.fixture
def enqueued(monkeypatch):
    """Jobs the code under test sends (foundation.sending.send), as (task name, args, queue)
    instead of reaching the broker: the session's real worker must not race the test for
    them. Sent once the transaction commits, like real jobs."""
    sent: list[tuple] = []

    def capture(task, args, queue, *, countdown=None):  # a countdown, when given, recorded too
        sent.append((task, args, queue) if countdown is None else (task, args, queue, countdown))

    monkeypatch.setattr("foundation.sending.send", capture)
    return sent


# --- people ---------------------------------------------------------------------------------


@pytest.fixture
def make_user(django_user_model):
    from foundation.tenancy import Team

    def make(username: str, *teams: str, staff: bool = False):
        user = django_user_model.objects.create_user(username, password="pw-" + username)
        user.is_staff = staff
        user.save()
        for name in teams:
            team, _ = Team.objects.get_or_create(name=name)
            team.members.add(user)
        return user

    return make


@pytest.fixture
def alice(make_user):
    return make_user("alice", "red")


@pytest.fixture
def bob(make_user):
    return make_user("bob", "blue")


def token_client(user) -> APIClient:
    client = APIClient()
    token, _ = Token.objects.get_or_create(user=user)
    client.credentials(HTTP_AUTHORIZATION=f"Token {token.key}")
    return client


@pytest.fixture
def alice_api(alice):
    return token_client(alice)


@pytest.fixture
def bob_api(bob):
    return token_client(bob)


@pytest.fixture
def alice_run(alice):
    from foundation.tenancy import Team
    from runs import services

    return services.do_create_run(owner=alice, team=Team.objects.get(name="red"), name="alice-run")


@pytest.fixture(scope="session")
def built_fixture(django_db_setup, django_db_blocker, tmp_path_factory) -> Path:
    """The "sum" package imported and built once per session (a sandboxed dataset build,
    ~10 s), its rows and the built-in reward configurations dumped to a fixture file; the
    session's database is left as it was."""
    from django.apps import apps
    from django.core import serializers
    from django.db import transaction

    from rewards.services import do_load_configs
    from tests.problems.test_dataset_build import import_sum, run_build

    folder = tmp_path_factory.mktemp("built")
    with django_db_blocker.unblock(), transaction.atomic():
        import_sum(folder)
        run_build(["sum"])
        do_load_configs()
        models = [*apps.get_app_config("problems").get_models()]
        models.append(apps.get_model("rewards", "RewardConfig"))
        rows = [row for model in models for row in model.objects.order_by("pk")]
        path = folder / "built.json"
        path.write_text(serializers.serialize("json", rows))
        transaction.set_rollback(True)
    return path


@pytest.fixture
def built(built_fixture, db):
    """The session's built "sum" problem (stored reference runtimes) and the built-in reward
    configurations, loaded into this test's database: what a training run needs. loaddata
    also resets PostgreSQL's id sequences past the loaded rows."""
    from django.core.management import call_command

    call_command("loaddata", str(built_fixture), verbosity=0)


# --- real processes -------------------------------------------------------------------------


def wait_until(predicate, timeout: float, what: str, interval: float = 0.05):
    """Poll `predicate` until it returns a truthy value (scripts/cluster.py's poll); a test
    failure naming `what` at the deadline."""
    try:
        return poll_until(predicate, timeout, what, interval)
    except TimeoutError as exc:
        raise AssertionError(str(exc)) from None


def wait_for_status(worker, row, statuses: tuple[str, ...], timeout: float, what: str) -> None:
    """Poll a model row (refreshed) until its `status` is one of `statuses`; fail at once,
    with the worker's output, if the worker process died meanwhile."""

    def ended():
        if not worker.alive():
            raise AssertionError("worker died:\n" + worker.output())
        row.refresh_from_db()
        return row.status in statuses

    try:
        wait_until(ended, timeout, what)
    except AssertionError as exc:  # what the worker was doing meanwhile
        if worker.alive():
            tail = "\n".join(worker.output().splitlines()[-60:])
            raise AssertionError(f"{exc}; the row is {row.status!r}; worker:\n{tail}") from None
        raise


def _database_url_for_subprocess() -> str:
    from django.db import connection

    db = connection.settings_dict
    if db["ENGINE"].endswith("sqlite3"):
        return f"sqlite:///{db['NAME']}"
    user = db.get("USER") or "postgres"
    host = db.get("HOST") or "127.0.0.1"
    port = db.get("PORT") or 5432
    return f"postgres://{user}@{host}:{port}/{db['NAME']}"


def subprocess_env(**extra: str) -> dict[str, str]:
    env = dict(os.environ)
    env.update(
        DEBUG="1",
        DATABASE_URL=_database_url_for_subprocess(),
        CODEOPT_VAR_DIR=str(settings.VAR_DIR),
        PYTHONUNBUFFERED="1",
    )
    env.update(extra)
    return env


class Process:
    def __init__(self, argv: list[str], env: dict[str, str], log: Path):
        self.log_path = log
        self.log = log.open("w")
        self.proc = subprocess.Popen(
            argv,
            cwd=ROOT,
            env=env,
            stdout=self.log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )

    def alive(self) -> bool:
        return self.proc.poll() is None

    def output(self) -> str:
        self.log.flush()
        return self.log_path.read_text()

    def stop(self):
        if self.alive():
            os.killpg(self.proc.pid, signal.SIGTERM)
            try:
                self.proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait()
        self.log.close()


def start_daphne(port: int, env: dict[str, str], log: Path) -> Process:
    """A real daphne on 127.0.0.1:`port`, returned once it listens."""
    argv = [sys.executable, "-m", "daphne", "-b", "127.0.0.1", "-p", str(port)]
    proc = Process([*argv, "codeopt_site.asgi:application"], env, log)

    def up():
        if not proc.alive():
            raise AssertionError("daphne exited:\n" + proc.output())
        return listening(port)

    wait_until(up, 60, "daphne to listen")
    return proc


@pytest.fixture(scope="session")
def asgi_server(django_db_setup, django_db_blocker, tmp_path_factory):
    """A real daphne serving the test database; yields its base URL."""
    port = free_port()
    with django_db_blocker.unblock():
        env = subprocess_env()
    proc = start_daphne(port, env, tmp_path_factory.mktemp("daphne") / "daphne.log")
    yield f"http://127.0.0.1:{port}"
    proc.stop()


@pytest.fixture(scope="session")
def celery_worker_process(django_db_setup, django_db_blocker, tmp_path_factory):
    """A real Celery worker process on the configured broker and the test database."""
    log = tmp_path_factory.mktemp("celery") / "worker.log"
    with django_db_blocker.unblock():
        env = subprocess_env()
    hostname = f"test-{os.getpid()}@%h"
    proc = Process(
        celery_worker_argv(
            *("--pool", "threads", "--concurrency", "2", "-Q", "default,timing,gpu,eval,judge"),
            *("-n", hostname, "--purge"),
        ),
        env,
        log,
    )
    wait_until(lambda: "ready." in proc.output() or not proc.alive(), 90, "the worker to start")
    if not proc.alive():
        raise AssertionError("celery worker exited:\n" + proc.output())
    yield proc
    proc.stop()


@pytest.fixture(scope="session")
def chromium_path() -> str:
    path = shutil.which("chromium") or "/usr/bin/chromium"
    if not Path(path).exists():
        raise AssertionError("Debian's chromium is not installed: run `make system-packages`")
    return path


CHROMIUM_ARGS = [
    "--headless=new",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


@pytest.fixture
def page_errors() -> list[str]:
    """The uncaught script errors of the test's `page` (a test asserts it stays empty)."""
    return []


@pytest.fixture
def open_page(chromium_path, page_errors, monkeypatch):
    """open_page() -> a page of a fresh headless Chromium (Debian's, driven by Playwright),
    1400x1000, its script errors collected in `page_errors`; closed after the test. Open it
    once the test's data is in place: while it is open, Playwright's sync API keeps an event
    loop in this thread, where services that notify the channel layer cannot run."""
    from playwright.sync_api import sync_playwright

    opened = []

    def open_one():
        # the test's ORM reads between page actions are plain synchronous code all the same
        monkeypatch.setenv("DJANGO_ALLOW_ASYNC_UNSAFE", "true")
        playwright = sync_playwright().start()
        browser = playwright.chromium.launch(executable_path=chromium_path, args=CHROMIUM_ARGS)
        opened.append((playwright, browser))
        page = browser.new_page(viewport={"width": 1400, "height": 1000})
        page.on("pageerror", lambda exc: page_errors.append(str(exc)))
        return page

    yield open_one
    for playwright, browser in opened:
        browser.close()
        playwright.stop()


def log_in(page, server: str, next_path: str, user: str = "alice") -> None:
    """Log in through the real login form, landing on `next_path`."""
    page.goto(f"{server}/accounts/login/?next={next_path}")
    page.fill("input[name=username]", user)
    page.fill("input[name=password]", f"pw-{user}")
    page.click("button[type=submit]")
    # The click only starts the navigation: wait until the landing page has loaded, so a
    # caller never evaluates against the login page or a document whose body is not parsed.
    page.wait_for_url(f"{server}{next_path}", wait_until="load")


# --- a problem package ------------------------------------------------------------------


@pytest.fixture
def sum_package(tmp_path, settings) -> Path:
    """A problem package: sum the numbers; two accepted references, one fast, one slow. The
    test's folder is added to CODEOPT_PACKAGE_ROOTS, so that a timing job may name it."""
    settings.CODEOPT_PACKAGE_ROOTS = [*settings.CODEOPT_PACKAGE_ROOTS, tmp_path]
    return write_sum_package(tmp_path / "sum")
