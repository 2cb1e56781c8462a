"""Start-up checks: a process reaches the services it needs before it takes any work.

Every process kind checks, at start and within settings.STARTUP_CHECK_TIMEOUT_S, the services
it needs (`NEEDS`) and exits with status `EXIT_UNAVAILABLE` and one line per unreachable
service naming its variable (password masked) and what to do:

- web (`codeopt_site.asgi`, so daphne and `manage.py runserver`): database, broker, channel
  layer;
- Celery worker (`check_worker_start`, on `worker_init`: before it consumes a message):
  database, broker;
- management commands (`manage.py`, `check_command`): the database, and the broker for those
  that queue work; the few that need neither (`NO_SERVICES`) are not held up.

The probes open a connection of their own, with the timeout passed to the driver, in a
thread waited for at most the timeout: a host that drops packets cannot stall a start-up.
Django must be set up before a probe runs; this module imports nothing at load time that
needs it (codeopt_site.celery imports it).
"""

from __future__ import annotations

import copy
import math
import os
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

from foundation.env import redact, redact_url

EXIT_UNAVAILABLE = 69
"""sysexits' EX_UNAVAILABLE: a service the process needs is unavailable."""


@dataclass(frozen=True)
class Service:
    name: str
    variable: str
    advice: str


DATABASE = Service(
    "database",
    "DATABASE_URL",
    "start the database, or set DATABASE_URL to one this host reaches with the right user, "
    "password and database name (postgres://user:password@host:5432/name; unset, it is the "
    "embedded SQLite file under CODEOPT_VAR_DIR)",
)
BROKER = Service(
    "broker",
    "CELERY_BROKER_URL",
    "start the broker, or set CELERY_BROKER_URL to one this host reaches with the right user "
    "and password (redis://host:6379/1, amqp://user:password@host:5672//; unset, it is the "
    "filesystem broker under CODEOPT_VAR_DIR, for one machine only)",
)
CHANNEL_LAYER = Service(
    "channel layer",
    "REDIS_URL",
    "start Redis, or set REDIS_URL to one this host reaches (redis://host:6379/0); unset, "
    "the web process uses its in-process channel layer (one web process only)",
)

NO_SERVICES = frozenset(
    {
        "help",
        "version",
        "check",
        "makemigrations",
        "collectstatic",
        "findstatic",
        "diffsettings",
        "startapp",
        "startproject",
        "compilemessages",
        "makemessages",
        "sendtestemail",
    }
)
"""Management commands that need neither the database nor the broker."""

QUEUEING_COMMANDS = frozenset({"start_demo_run"})
"""Commands that always queue work (the others do with `--queue`)."""


class Unreachable(Exception):
    """`service` could not be used within the time allowed; the text names its variable."""

    def __init__(self, service: Service, detail: str):
        url = _configured_url(service)
        shown = (
            f"{service.variable}={redact_url(url)}"
            if os.environ.get(service.variable)
            else f"{service.variable} (not set: {redact_url(url) or 'the default'})"
        )
        detail = redact(detail, url).rstrip(".")
        super().__init__(
            f"the {service.name} at {shown} cannot be used: {detail}. To fix: {service.advice}."
        )
        self.service = service


def _configured_url(service: Service) -> str:
    from django.conf import settings

    return getattr(settings, service.variable, "") or ""


def described(exc: BaseException) -> str:
    """An exception on one line, its class first."""
    return " ".join(f"{type(exc).__name__}: {exc}".split())  # a driver's message spans lines


# --- probes ---------------------------------------------------------------------------------


def reach_database(timeout_s: float) -> str:
    """Open a connection of its own to the default database and run SELECT 1; its vendor.
    PostgreSQL gets libpq's connect_timeout (whole seconds, 2 at least)."""
    from django.db import connections
    from django.db.utils import load_backend

    config = copy.deepcopy(connections.settings["default"])
    if config["ENGINE"].endswith("postgresql"):
        config.setdefault("OPTIONS", {})["connect_timeout"] = max(2, math.ceil(timeout_s))
    probe = load_backend(config["ENGINE"]).DatabaseWrapper(config, "startup-check")
    try:
        with probe.cursor() as cursor:
            cursor.execute("SELECT 1")
    finally:
        probe.close()
    return probe.vendor


def reach_broker(timeout_s: float) -> str:
    """Connect to the broker as the workers do (transport options included); its transport."""
    from django.conf import settings
    from kombu import Connection

    url = settings.CELERY_BROKER_URL
    if url.startswith("filesystem://"):
        return "filesystem"  # folders on this disk (settings made them): nothing to reach
    options = dict(settings.CELERY_BROKER_TRANSPORT_OPTIONS)
    if url.startswith(("redis", "rediss")):
        options["socket_timeout"] = timeout_s
    with Connection(url, connect_timeout=timeout_s, transport_options=options) as conn:
        conn.ensure_connection(max_retries=0, timeout=timeout_s)
        if conn.transport.driver_type == "redis":
            conn.default_channel.client.ping()  # kombu connects to Redis lazily
    return url.split("://", 1)[0]


def reach_channel_layer(timeout_s: float) -> str:
    """PING the channel layer's Redis (nothing to reach for the in-process layer)."""
    from django.conf import settings

    if not settings.REDIS_URL:
        return "in-process"
    import redis

    client = redis.Redis.from_url(
        settings.REDIS_URL, socket_connect_timeout=timeout_s, socket_timeout=timeout_s
    )
    try:
        client.ping()
    finally:
        client.close()
    return "redis"


PROBES: dict[Service, Callable[[float], str]] = {
    DATABASE: reach_database,
    BROKER: reach_broker,
    CHANNEL_LAYER: reach_channel_layer,
}

NEEDS = {
    "web": (DATABASE, BROKER, CHANNEL_LAYER),
    "worker": (DATABASE, BROKER),
    "command": (DATABASE,),
    "queueing command": (DATABASE, BROKER),
}


def unreachable(services, timeout_s: float) -> list[Unreachable]:
    """Probe `services` side by side; those that failed or did not answer within
    `timeout_s`, in the order given. A probe still hanging is left to its daemon thread."""
    outcome: dict[Service, BaseException | None] = {}

    def probe(service: Service) -> None:
        try:
            PROBES[service](timeout_s)
            outcome[service] = None
        except Exception as exc:
            outcome[service] = exc

    threads = [threading.Thread(target=probe, args=(s,), daemon=True) for s in services]
    for thread in threads:
        thread.start()
    deadline = time.monotonic() + timeout_s + 1  # the driver's own timeout comes first
    for thread in threads:
        thread.join(max(0.0, deadline - time.monotonic()))
    failed = []
    for service in services:
        if service not in outcome:
            failed.append(Unreachable(service, f"no answer within {timeout_s:g} s"))
        elif outcome[service] is not None:
            failed.append(Unreachable(service, described(outcome[service])))
    return failed


def exit_unless_reachable(kind: str) -> None:
    """Exit with EXIT_UNAVAILABLE, naming each service of `NEEDS[kind]` that cannot be
    reached (one line each on stderr), before this process takes any work."""
    from django.conf import settings

    failed = unreachable(NEEDS[kind], settings.STARTUP_CHECK_TIMEOUT_S)
    if not failed:
        return
    for problem in failed:
        print(f"codeopt {kind} cannot start: {problem}", file=sys.stderr, flush=True)
    sys.exit(EXIT_UNAVAILABLE)


def check_worker_start(sender=None, **kwargs) -> None:
    """celery's worker_init: Django is set up and the tasks are imported, nothing is
    consumed yet (codeopt_site.celery connects it)."""
    exit_unless_reachable("worker")


def command_kind(argv: list[str]) -> str | None:
    """What a `manage.py` command line needs (a key of NEEDS), or None."""
    name = argv[0] if argv and not argv[0].startswith("-") else "help"
    if name in NO_SERVICES:
        return None
    if name == "runserver":
        return "web"
    if name in QUEUEING_COMMANDS or "--queue" in argv:
        return "queueing command"
    return "command"


def check_command(argv: list[str]) -> None:
    """manage.py's check: exits before a command runs against a service it cannot reach.
    `runserver`'s autoreloaded child is left to codeopt_site.asgi's check."""
    kind = command_kind(argv)
    if kind is None or os.environ.get("RUN_MAIN") == "true":
        return
    import django

    django.setup()
    exit_unless_reachable(kind)
