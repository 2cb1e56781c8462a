"""The processes of a cluster (scripts/cluster.py): one OS process in a process group of its
own (`Process`), and the members a `Cluster` starts around one: a web process, a timing host,
a training host, each with its folder, environment and fault proxies.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from scripts.faultproxy import FaultProxy
from scripts.readiness import celery_worker_argv, free_port, listening

if TYPE_CHECKING:
    from scripts.cluster_topology import Cluster

ROOT = Path(__file__).resolve().parent.parent
PYTHON = sys.executable
STOP_TIMEOUT_S = 10.0
HOST_LETTERS = "abcdefgh"


class Process:
    """One OS process of the cluster in a process group of its own, output in `log`."""

    def __init__(self, name: str, argv: list[str], env: dict[str, str], log: Path):
        self.name, self.argv, self.env, self.log_path = name, argv, env, log
        self.proc: subprocess.Popen | None = None

    def start(self) -> None:
        with self.log_path.open("a") as log:
            self.proc = subprocess.Popen(
                self.argv,
                cwd=ROOT,
                env=self.env,
                stdout=log,
                stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
                start_new_session=True,
            )

    def alive(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def output(self) -> str:
        return self.log_path.read_text(errors="replace") if self.log_path.exists() else ""

    def kill(self, sig: int = signal.SIGKILL) -> None:
        """`sig` to the whole process group (a host lost at once: pool processes too)."""
        if self.alive():
            try:
                os.killpg(self.proc.pid, sig)
            except ProcessLookupError:
                pass
            if sig == signal.SIGKILL:
                self.proc.wait()

    def stop(self) -> None:
        """SIGTERM, then SIGKILL after STOP_TIMEOUT_S; the group's leftovers killed too."""
        if self.proc is None:
            return
        if self.alive():
            os.killpg(self.proc.pid, signal.SIGTERM)
            try:
                self.proc.wait(timeout=STOP_TIMEOUT_S)
            except subprocess.TimeoutExpired:
                pass
        try:  # pool processes outliving their parent
            os.killpg(self.proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        self.proc.wait()


class Member:
    """A web process or a timing host: its folder, environment, proxies and process."""

    def __init__(self, cluster: Cluster, name: str):
        self.cluster = cluster
        self.name = name
        self.folder = cluster.folder / name
        (self.folder / "var").mkdir(parents=True, exist_ok=True)
        (self.folder / "tmp").mkdir(exist_ok=True)
        self.database = FaultProxy("127.0.0.1", cluster.postgres_port, name=f"{name} database")
        self.broker = FaultProxy(cluster.redis_host, cluster.redis_port, name=f"{name} broker")
        self.env = cluster.base_env()
        self.env.update(
            DATABASE_URL=cluster.database_url(self.database.port),
            CELERY_BROKER_URL=cluster.broker_url(self.broker.port),
            CODEOPT_VAR_DIR=str(self.folder / "var"),
            TMPDIR=str(self.folder / "tmp"),
        )
        self.process: Process | None = None

    @property
    def proxies(self) -> list[FaultProxy]:
        return [self.database, self.broker]

    def alive(self) -> bool:
        return self.process is not None and self.process.alive()

    def output(self) -> str:
        return self.process.output() if self.process else ""

    def kill(self, sig: int = signal.SIGKILL) -> None:
        if self.process is not None:
            self.process.kill(sig)

    def all_output(self) -> str:
        """The logs of every start of a worker host, oldest first ("" for a web process)."""
        logs = sorted(self.folder.glob("worker-*.log"), key=lambda p: int(p.stem.split("-")[1]))
        return "".join(p.read_text(errors="replace") for p in logs)

    def stop(self) -> None:
        if self.process is not None:
            self.process.stop()

    def close(self) -> None:
        self.stop()
        for proxy in self.proxies:
            proxy.close()


class WebProcess(Member):
    def __init__(self, cluster: Cluster, index: int):
        super().__init__(cluster, f"web-{index}")
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"

    def start(self) -> None:
        argv = [PYTHON, "-m", "daphne", "-b", "127.0.0.1", "-p", str(self.port)]
        argv.append("codeopt_site.asgi:application")
        self.process = Process(self.name, argv, self.env, self.folder / "daphne.log")
        self.process.start()

    def ready(self) -> bool:
        if not self.alive():
            raise RuntimeError(f"{self.name} exited:\n{self.output()[-4000:]}")
        return listening(self.port)


class TimingHost(Member):
    """A timing "host": a Celery worker on `timing` pinned to `cores`."""

    def __init__(self, cluster: Cluster, index: int, cores: list[int]):
        super().__init__(cluster, f"timing-{HOST_LETTERS[index]}")
        self.cores = cores
        self.hostname = f"{self.name}@{cluster.tag}"
        self.env["CODEOPT_PIN_CORES"] = "1"
        self.starts = 0

    def start(self) -> None:
        """Start (or start again, after a kill) the worker; `ready` says when it consumes."""
        self.stop()
        cores = ",".join(map(str, self.cores))
        argv = ["taskset", "-c", cores, PYTHON, "-m", "celery", "-A", "codeopt_site", "worker"]
        argv += ["-l", "info", "-Q", "timing", "-n", self.hostname, "--pool", "prefork"]
        argv += ["--concurrency", str(len(self.cores)), "--prefetch-multiplier", "1"]
        self.starts += 1
        log = self.folder / f"worker-{self.starts}.log"
        self.process = Process(self.name, argv, self.env, log)
        self.process.start()

    def ready(self) -> bool:
        if not self.alive():
            raise RuntimeError(f"{self.name} exited:\n{self.output()[-4000:]}")
        return " ready." in self.output()


class TrainingHost(Member):
    """A training "host": a Celery worker on `gpu`, one run at a time (a one-GPU machine).
    A run's checkpoints go under the CODEOPT_VAR_DIR of the process that started it
    (docs/operations.md): benchmarks start runs with `Cluster.manage`, whose folder is the
    cluster's `manage/`."""

    def __init__(self, cluster: Cluster, index: int):
        super().__init__(cluster, f"training-{HOST_LETTERS[index]}")
        self.hostname = f"{self.name}@{cluster.tag}"
        self.starts = 0

    def start(self) -> None:
        self.stop()
        argv = celery_worker_argv("-Q", "gpu,eval", python=PYTHON)
        argv += ["-n", self.hostname, "--pool", "threads", "--concurrency", "1"]
        argv += ["--prefetch-multiplier", "1"]
        self.starts += 1
        self.process = Process(self.name, argv, self.env, self.folder / f"worker-{self.starts}.log")
        self.process.start()

    def ready(self) -> bool:
        if not self.alive():
            raise RuntimeError(f"{self.name} exited:\n{self.output()[-4000:]}")
        return " ready." in self.output()
