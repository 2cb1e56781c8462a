"""The cluster of scripts/cluster.py's docstring as one object: its database and Redis
databases, its members (scripts/cluster_hosts.py) started and stopped together, faults on
every process at once, and what tests and benchmarks read from it (SQL, task outcomes).
"""

from __future__ import annotations

import atexit
import os
import secrets
import shutil
import subprocess
import sys
import tempfile
import threading
from pathlib import Path

from scripts.cluster_hosts import (
    HOST_LETTERS,
    PYTHON,
    ROOT,
    Member,
    TimingHost,
    TrainingHost,
    WebProcess,
)
from scripts.faultproxy import FaultProxy
from scripts.readiness import wait_until

START_TIMEOUT_S = 120.0
FIT_TIMEOUT_S = 180.0
"""How long `wait_fit` waits: six of the 30 s a host waits to measure again after an unstable
calibration (scoring.calibration.RETRY_S)."""
LOCK_KEY = "codeopt-cluster:lock"
LOCK_TTL_S = 60
DROPPED = ("DATABASE_URL", "CELERY_BROKER_URL", "REDIS_URL", "REDIS_CHANNEL_PREFIX")
"""Variables of the caller's environment that never reach a cluster process (the harness
sets its own)."""

SCORING_AUDIT = """
CREATE TABLE cluster_audit (
    id bigserial PRIMARY KEY, tbl text, row_id bigint, job_id bigint, status text, worker text,
    at timestamptz DEFAULT clock_timestamp()
);
CREATE FUNCTION cluster_audit() RETURNS trigger AS $$
DECLARE
    part boolean := TG_TABLE_NAME = 'workers_scoringpart';
BEGIN
    IF TG_OP = 'INSERT' OR NEW.status IS DISTINCT FROM OLD.status
            OR NEW.worker IS DISTINCT FROM OLD.worker THEN
        INSERT INTO cluster_audit (tbl, row_id, job_id, status, worker) VALUES (
            CASE WHEN part THEN 'part' ELSE 'job' END, NEW.id,
            CASE WHEN part THEN (to_jsonb(NEW) ->> 'job_id')::bigint ELSE NEW.id END,
            NEW.status, NEW.worker);
    END IF;
    RETURN NEW;
END $$ LANGUAGE plpgsql;
CREATE TRIGGER cluster_audit AFTER INSERT OR UPDATE ON workers_scoringjob
    FOR EACH ROW EXECUTE FUNCTION cluster_audit();
CREATE TRIGGER cluster_audit AFTER INSERT OR UPDATE ON workers_scoringpart
    FOR EACH ROW EXECUTE FUNCTION cluster_audit();
"""
"""A trigger that writes every status (or worker) change of a scoring job or part to
`cluster_audit`: Cluster.scoring_claims counts claims and completions from it."""


class Cluster:
    """The topology of scripts/cluster.py's docstring. `start()` returns once every web
    process listens and every timing host consumes; `stop()` undoes all of it (safe to call
    twice, or after a failed start)."""

    def __init__(
        self,
        timing_hosts: int = 2,
        web: int = 2,
        *,
        training_hosts: int = 0,
        folder: Path | None = None,
        postgres: str = "postgres://postgres@127.0.0.1:5432",
        redis: str = "redis://127.0.0.1:6379",
        channel_db: int = 10,
        broker_db: int = 12,
        cores: list[list[int]] | None = None,
        env: dict[str, str] | None = None,
    ):
        if not 1 <= timing_hosts <= len(HOST_LETTERS):
            raise ValueError(f"timing_hosts must be 1 to {len(HOST_LETTERS)}")
        if not 0 <= training_hosts <= len(HOST_LETTERS):
            raise ValueError(f"training_hosts must be 0 to {len(HOST_LETTERS)}")
        if web < 1:
            raise ValueError("web must be at least 1")
        # a temporary folder goes with the cluster, unless it stops on an error (its logs
        # are then kept, and named); a folder the caller gave stays
        self.keep_folder = folder is not None
        self.tag = f"cluster-{secrets.token_hex(4)}"
        self.database_name = f"codeopt_cluster_{self.tag.split('-')[1]}"
        self.folder = Path(folder or tempfile.mkdtemp(prefix="codeopt-cluster-"))
        self.postgres = postgres.rstrip("/")
        self.postgres_user = self.postgres.split("://", 1)[1].split("@", 1)[0] or "postgres"
        host_port = self.postgres.rsplit("@", 1)[1]
        self.postgres_port = int(host_port.rsplit(":", 1)[1]) if ":" in host_port else 5432
        redis_host_port = redis.split("://", 1)[1].rstrip("/")
        self.redis_host, _, port = redis_host_port.partition(":")
        self.redis_port = int(port or 6379)
        self.redis = redis.rstrip("/")
        self.channel_db, self.broker_db = channel_db, broker_db
        self.extra_env = dict(env or {})
        available = sorted(os.sched_getaffinity(0))
        self.core_sets = cores or [[available[i % len(available)]] for i in range(timing_hosts)]
        self.timing_host_count = timing_hosts
        self.training_host_count = training_hosts
        self.web_count = web
        self.webs: list[WebProcess] = []
        self.hosts: list[TimingHost] = []
        self.trainers: list[TrainingHost] = []
        self._database_made = False
        self._lock_stop = threading.Event()
        self._locked = False
        self._stopped = False

    # --- what the processes are told ---------------------------------------------------------

    def database_url(self, port: int | None = None) -> str:
        """The cluster database, through a proxy on `port` (direct when None)."""
        address = f"127.0.0.1:{port}" if port else self.postgres.rsplit("@", 1)[1]
        return f"postgres://{self.postgres_user}@{address}/{self.database_name}"

    def broker_url(self, port: int | None = None) -> str:
        address = f"127.0.0.1:{port}" if port else f"{self.redis_host}:{self.redis_port}"
        return f"redis://{address}/{self.broker_db}"

    @property
    def channel_url(self) -> str:
        return f"{self.redis}/{self.channel_db}"

    def base_env(self) -> dict[str, str]:
        """What every process is started with: the caller's environment without the
        services it names, and the cluster's own."""
        env = {k: v for k, v in os.environ.items() if k not in DROPPED}
        env.update(
            DEBUG="0",
            SECRET_KEY=f"{self.tag}-secret",
            ALLOWED_HOSTS="127.0.0.1,localhost",
            REDIS_URL=self.channel_url,
            REDIS_CHANNEL_PREFIX=self.tag,
            DB_CONN_MAX_AGE="0",
            PYTHONUNBUFFERED="1",
        )
        env.update(self.extra_env)
        return env

    @property
    def web_urls(self) -> list[str]:
        return [web.url for web in self.webs]

    @property
    def members(self) -> list[Member]:
        return [*self.webs, *self.hosts, *self.trainers]

    # --- life cycle ------------------------------------------------------------------------------

    def __enter__(self) -> Cluster:
        self.start()
        return self

    def __exit__(self, kind, value, traceback) -> None:
        if kind is not None and not self.keep_folder:
            self.keep_folder = True
            print(f"cluster {self.tag}: stopped on an error, logs kept in {self.folder}",
                  file=sys.stderr)  # fmt: skip
        self.stop()

    def start(self) -> Cluster:
        atexit.register(self.stop)
        try:
            self._take_redis()
            self._make_database()
            self.webs = [WebProcess(self, i) for i in range(self.web_count)]
            self.hosts = [
                TimingHost(self, i, self.core_sets[i]) for i in range(self.timing_host_count)
            ]
            self.trainers = [TrainingHost(self, i) for i in range(self.training_host_count)]
            for member in self.members:
                member.start()
            for member in self.members:
                wait_until(member.ready, START_TIMEOUT_S, f"{member.name} to start")
        except BaseException:
            self.stop()
            raise
        return self

    def stop(self) -> None:
        if self._stopped:
            return
        self._stopped = True
        for member in self.members:
            try:
                member.close()
            except Exception as exc:  # go on stopping the others
                print(f"cluster: stopping {member.name}: {exc}", file=sys.stderr)
        if self._database_made:
            self._drop_database()
        self._release_redis()
        if not self.keep_folder:
            shutil.rmtree(self.folder, ignore_errors=True)
        atexit.unregister(self.stop)

    def start_host(self, host: TimingHost | TrainingHost, timeout: float = START_TIMEOUT_S) -> None:
        """(Re)start a timing or training host and wait until it consumes."""
        host.start()
        wait_until(host.ready, timeout, f"{host.name} to start")

    # --- faults on every process -------------------------------------------------------------

    def _proxies(self, service: str) -> list[FaultProxy]:
        if service not in ("database", "broker"):
            raise ValueError(f"service must be 'database' or 'broker', not {service!r}")
        return [getattr(member, service) for member in self.members]

    def cut(self, service: str) -> None:
        for proxy in self._proxies(service):
            proxy.cut()

    def drop(self, service: str) -> None:
        for proxy in self._proxies(service):
            proxy.drop()

    def delay(self, service: str, seconds: float) -> None:
        for proxy in self._proxies(service):
            proxy.delay(seconds)

    def restore(self) -> None:
        for member in self.members:
            for proxy in member.proxies:
                proxy.restore()

    # --- the database ------------------------------------------------------------------------

    def _admin(self):
        import psycopg

        return psycopg.connect(f"{self.postgres}/postgres", autocommit=True)

    def _make_database(self) -> None:
        with self._admin() as admin:
            admin.execute(f'CREATE DATABASE "{self.database_name}"')
        self._database_made = True
        self.manage("migrate", "--noinput", timeout=600)

    def _drop_database(self) -> None:
        with self._admin() as admin:
            admin.execute(f'DROP DATABASE IF EXISTS "{self.database_name}" WITH (FORCE)')
        self._database_made = False

    def manage(self, *args: str, input: str | None = None, timeout: float = 120):
        """`manage.py ARGS` on the cluster's database (direct, no proxy); its stdout, or
        RuntimeError with its output when it fails."""
        env = self.base_env()
        env.update(
            DATABASE_URL=self.database_url(),
            CELERY_BROKER_URL=self.broker_url(),
            CODEOPT_VAR_DIR=str(self.folder / "manage"),
        )
        done = subprocess.run(
            [PYTHON, "manage.py", *args],
            cwd=ROOT,
            env=env,
            input=input,
            capture_output=True,
            text=True,
            timeout=timeout,
        )
        if done.returncode != 0:
            raise RuntimeError(f"manage.py {' '.join(args)} failed:\n{done.stdout}{done.stderr}")
        return done.stdout

    def sql(self, query: str, params=None) -> list[tuple]:
        """Rows of `query` on the cluster's database (direct, no proxy)."""
        import psycopg

        url = self.database_url()
        with psycopg.connect(url, autocommit=True) as conn:
            cursor = conn.execute(query, params)
            return cursor.fetchall() if cursor.description else []

    def audit_scoring(self) -> None:
        """From now on, every status change of a scoring job or part is written down."""
        self.sql(SCORING_AUDIT)

    def scoring_claims(self, job_id: int, since: float | None = None) -> dict:
        """{"job": {status: count}, "parts": {part id: {status: count}}} of a job, from
        the audit table (changes after the Unix time `since` only, when given)."""
        query = (
            "SELECT tbl, row_id, status, count(*) FROM cluster_audit WHERE job_id = %s"
            " AND (%s::float8 IS NULL OR at > to_timestamp(%s::float8))"
            " GROUP BY tbl, row_id, status"
        )
        job: dict[str, int] = {}
        parts: dict[int, dict[str, int]] = {}
        for tbl, row_id, status, count in self.sql(query, [job_id, since, since]):
            target = job if tbl == "job" else parts.setdefault(row_id, {})
            target[status] = count
        return {"job": job, "parts": parts}

    # --- training runs -------------------------------------------------------------------------

    def train(self, config_toml: str, user: str, name: str) -> int:
        """Queue a training run of `config_toml` (training/config.py) for `user`
        (who must be in one team) on the `gpu` queue; returns the run's id."""
        path = self.folder / f"train-{name}.toml"
        path.write_text(config_toml)
        said = self.manage("train", str(path), "--user", user, "--name", name, "--queue")
        return int(said.split()[1])  # "run N (name) queued"

    def run_state(self, run_id: int) -> tuple[str, int]:
        """(the run's status, its training version: optimizer steps done)."""
        ((status, version),) = self.sql(
            "SELECT r.status, t.version FROM runs_run r JOIN workers_trainingrun t"
            " ON t.run_id = r.id WHERE r.id = %s",
            [run_id],
        )
        return status, version

    def run_ended(self, run_id: int, timeout: float = 900) -> str:
        """Wait for the run to finish, fail or stop; its status."""

        def ended() -> str | None:
            status = self.run_state(run_id)[0]
            return status if status in ("finished", "failed", "stopped") else None

        return wait_until(ended, timeout, f"run {run_id} to end", interval=1.0)

    def series_steps(self, run_id: int) -> dict[str, list[int]]:
        """{metric key: its stored steps, ascending} of a run."""
        rows = self.sql(
            "SELECT s.key, p.step FROM runs_metricpoint p JOIN runs_metricseries s"
            " ON s.id = p.series_id WHERE s.run_id = %s ORDER BY s.key, p.step",
            [run_id],
        )
        steps: dict[str, list[int]] = {}
        for key, step in rows:
            steps.setdefault(key, []).append(step)
        return steps

    def rollout_counts(self, run_id: int) -> tuple[int, int]:
        """(rollout samples stored, distinct (step, group, index) among them) of a run."""
        ((total, distinct),) = self.sql(
            'SELECT count(*), count(DISTINCT (step, "group", index)) FROM'
            " workers_rolloutsample r JOIN workers_trainingrun t ON t.id = r.training_id"
            " WHERE t.run_id = %s",
            [run_id],
        )
        return total, distinct

    def checkpoint_versions(self, run_id: int) -> list[int]:
        """The checkpoints of a run started through `train` (under manage/), ascending."""
        folders = (self.folder / "manage" / "checkpoints").glob(f"run-{run_id}-*")
        return sorted(
            int(p.name.split("-")[1]) for f in folders for p in f.glob("step-[0-9]*[0-9]")
        )

    def api_token(self, username: str = "cluster", password: str = "", team: str = "") -> str:
        """A user (made if missing, in `team` when given) and its API token."""
        script = (
            "from django.contrib.auth import get_user_model\n"
            "from rest_framework.authtoken.models import Token\n"
            "from runs.models import Team\n"
            f"user, _ = get_user_model().objects.get_or_create(username={username!r})\n"
            f"user.set_password({password or username!r}); user.save()\n"
            f"if {team!r}: Team.objects.get_or_create(name={team!r})[0].members.add(user)\n"
            "print(Token.objects.get_or_create(user=user)[0].key)\n"
        )
        return self.manage("shell", "-c", script).strip().splitlines()[-1]

    def refusals(self, token: str) -> dict[str, str]:
        """Timing host -> why it refuses scoring work ("" when it takes it; "not calibrated
        yet" before its first calibration), as /healthz tells a signed-in user."""
        from runs.client import api_request

        report = api_request("GET", f"{self.web_urls[0]}/healthz", token, None, 30)
        if not report["calibration"]["interval_s"]:  # calibration off: every host takes work
            return {h.hostname: "" for h in self.hosts}
        rows = report["calibration"]["hosts"]
        said = {row["hostname"]: row["refuses_scoring"] for row in rows}
        return {h.hostname: said.get(h.hostname, "not calibrated yet") for h in self.hosts}

    def wait_fit(self, timeout: float = FIT_TIMEOUT_S) -> None:
        """Wait until every timing host is calibrated and takes scoring work. A host
        calibrates when it starts; one whose anchors came out unstable (a burst of load on
        the machine) refuses scoring, rightly, until it measures again. A job posted before
        is scored by the other hosts only: what a test or benchmark of spreading must not
        read. TimeoutError naming each host's refusal at the deadline."""
        token = self.api_token()
        seen: dict[str, str] = {}

        def fit() -> bool:
            seen.update(self.refusals(token))
            return not any(seen.values())

        try:
            wait_until(fit, timeout, "every timing host calibrated and fit", interval=1.0)
        except TimeoutError as exc:
            raise TimeoutError(f"{exc}: {seen}") from None

    # --- messages ------------------------------------------------------------------------------

    def send_task(self, name: str, args: list, queue: str) -> str:
        """Put a task message on the cluster's broker, as a re-delivery or a stray copy would
        arrive; returns its task id (task_outcome reads what became of it)."""
        from celery import Celery
        from kombu import Connection

        app = Celery("cluster-client", set_as_current=False)
        app.conf.update(task_serializer="json", accept_content=["json"])
        # a connection of its own: Celery prefers $CELERY_BROKER_URL (the caller's broker)
        # to the broker an app is given
        with Connection(self.broker_url()) as connection:
            return app.send_task(name, args=args, queue=queue, connection=connection).id

    def task_outcome(self, task_id: str) -> str | None:
        """The line of a worker host's log saying task `task_id` ended (Celery's "Task NAME[ID]
        succeeded in …: RESULT" or "… raised …"), or None while none does."""
        for member in [*self.hosts, *self.trainers]:
            for line in member.all_output().splitlines():
                if f"[{task_id}] succeeded in " in line or f"[{task_id}] raised " in line:
                    return line
        return None

    # --- Redis ---------------------------------------------------------------------------------

    def _redis(self, db: int):
        import redis

        return redis.Redis(host=self.redis_host, port=self.redis_port, db=db)

    def _take_redis(self) -> None:
        broker = self._redis(self.broker_db)
        if not broker.set(LOCK_KEY, self.tag, nx=True, ex=LOCK_TTL_S):
            holder = broker.get(LOCK_KEY)
            raise RuntimeError(
                f"Redis database {self.broker_db} is the broker of another cluster "
                f"({holder!r}): stop it, or pass another broker_db"
            )
        self._locked = True
        keep = broker.get(LOCK_KEY)
        broker.flushdb()  # what a killed earlier cluster left
        broker.set(LOCK_KEY, keep, ex=LOCK_TTL_S)
        threading.Thread(target=self._hold_lock, daemon=True).start()

    def _hold_lock(self) -> None:
        broker = self._redis(self.broker_db)
        while not self._lock_stop.wait(LOCK_TTL_S / 3):
            try:
                broker.set(LOCK_KEY, self.tag, ex=LOCK_TTL_S)
            except Exception as exc:  # Redis away a moment: the next refresh retries
                print(f"cluster: lock refresh failed: {exc}", file=sys.stderr)

    def _release_redis(self) -> None:
        self._lock_stop.set()
        if not self._locked:
            return
        channels = self._redis(self.channel_db)
        for key in channels.scan_iter(match=f"{self.tag}*"):
            channels.delete(key)
        broker = self._redis(self.broker_db)
        if broker.get(LOCK_KEY) in (self.tag.encode(), None):
            broker.flushdb()
        self._locked = False
