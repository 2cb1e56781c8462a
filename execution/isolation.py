"""What keeps concurrent runs apart: a cgroup of its own per run, and a uid of its own per
concurrent slot. Plain Python, no Django.

Mechanisms, the first one usable on this host wins (`CODEOPT_SANDBOX_ISOLATION` forces one):
1. `cgroup-v2`: a directory of a cgroup v2 tree the worker may write, with `pids` and
   `memory` enabled for its children (`CODEOPT_CGROUP_ROOT`, else the worker's own cgroup under
   /sys/fs/cgroup when that is unified and delegated);
2. `cgroup-v1`: the worker's current cgroup in each writable v1 hierarchy of `pids` and
   `memory` (and `cpu`, `cpuacct` when mounted), per /proc/self/cgroup;
3. `uid-pool`: no cgroup can be made; only the slot uid separates runs (RLIMIT_NPROC counts
   the processes of one slot, RLIMIT_AS caps each process).
Every mechanism runs the program as a slot uid taken from a pool (`CODEOPT_SANDBOX_UID_BASE`,
`CODEOPT_SANDBOX_UID_SLOTS`) with an `fcntl.flock` on a lock file per slot
(`CODEOPT_SANDBOX_LOCK_DIR`), so separate worker processes of a host never share one.

A run's cgroup is made before its process starts (the process joins it before exec, so
nothing escapes), read when the run ends (CPU, peak memory, whether the memory limit was hit)
and removed after anything left in it is killed.
"""

from __future__ import annotations

import errno
import fcntl
import itertools
import os
import random
import signal
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

from foundation.typed import setting_number

MECHANISMS = ("cgroup-v2", "cgroup-v1", "uid-pool")
CGROUP_PREFIX = "codeopt-run-"  # run cgroups are named codeopt-run-<pid>-<n>
PROCESS_OVERHEAD = 3
"""Processes of a run that are not the program's: bwrap, its PID-namespace init, the runner."""
SLOT_WAIT_S = 120.0  # a run waits this long for a free slot before it is a sandbox error
REMOVE_WAIT_S = 5.0  # the kernel frees a cgroup a moment after its last process is reaped
UNIFIED_MOUNT = Path("/sys/fs/cgroup")


class SandboxUnavailable(RuntimeError):
    """bubblewrap or a C compiler is missing, or the isolation asked for cannot be used
    here: the host needs fixing, retrying does not help."""


class SandboxError(RuntimeError):
    """The sandbox itself failed (could not start, set-up error, no report): never a verdict
    about the program. The engine retries; what is left is the verdict SANDBOX_ERROR."""


@dataclass(frozen=True)
class IsolationSettings:
    """How runs are kept apart; every field from the environment (`from_environ`)."""

    mechanism: str = "auto"
    """CODEOPT_SANDBOX_ISOLATION: auto, or one of MECHANISMS to insist on it."""
    cgroup_root: Path | None = None
    """CODEOPT_CGROUP_ROOT: a cgroup v2 directory delegated to the workers (children get
    pids and memory); the worker's own cgroup when unset."""
    uid_base: int = 62000
    """CODEOPT_SANDBOX_UID_BASE: the first slot uid (and gid); the range must be no one's."""
    uid_slots: int = 64
    """CODEOPT_SANDBOX_UID_SLOTS: concurrent runs on one host, at most."""
    lock_dir: Path = Path("/tmp/codeopt-sandbox-slots")
    """CODEOPT_SANDBOX_LOCK_DIR: the slots' lock files, shared by every worker of the host."""

    @classmethod
    def from_environ(cls, environ: dict[str, str] | None = None) -> IsolationSettings:
        """The settings, or ValueError naming the variable with a bad value."""
        env = os.environ if environ is None else environ
        mechanism = env.get("CODEOPT_SANDBOX_ISOLATION", "auto").strip() or "auto"
        if mechanism not in ("auto", *MECHANISMS):
            raise ValueError(
                f"CODEOPT_SANDBOX_ISOLATION={mechanism!r} is not auto or one of "
                f"{', '.join(MECHANISMS)}"
            )
        root = env.get("CODEOPT_CGROUP_ROOT", "").strip()
        return cls(
            mechanism=mechanism,
            cgroup_root=Path(root) if root else None,
            uid_base=_env_int(env, "CODEOPT_SANDBOX_UID_BASE", cls.uid_base, 1),
            uid_slots=_env_int(env, "CODEOPT_SANDBOX_UID_SLOTS", cls.uid_slots, 1),
            lock_dir=Path(env.get("CODEOPT_SANDBOX_LOCK_DIR", "") or cls.lock_dir),
        )


def _env_int(env, name: str, default: int, minimum: int) -> int:
    raw = env.get(name, "").strip()
    return setting_number(name, raw, int, minimum) if raw else default


# --- what a run's cgroup says when it ends ----------------------------------------------------


@dataclass
class CgroupUsage:
    cpu_s: float | None  # CPU of everything in the cgroup (bwrap and the runner included)
    peak_bytes: int | None  # the cgroup's peak memory charge (None: the kernel does not say)
    oom_killed: bool  # the kernel killed a process for the cgroup's memory limit


def _read(path: Path) -> str | None:
    try:
        return path.read_text()
    except FileNotFoundError:
        return None


def _keyed(text: str | None) -> dict[str, int]:
    """{key: value} of a flat-keyed cgroup file ("oom_kill 1\\nmax 3\\n")."""
    pairs = (line.split() for line in (text or "").splitlines())
    return {p[0]: int(p[1]) for p in pairs if len(p) == 2 and p[1].lstrip("-").isdigit()}


def _write(path: Path, value: str) -> None:
    with open(path, "w") as handle:
        handle.write(value)


class RunCgroup:
    """One run's cgroup (one directory per hierarchy). `join_files` are what the run's
    first process writes its pid into before it execs."""

    kind = "cgroup"

    def __init__(self, dirs: list[Path]):
        self.dirs = dirs

    @property
    def join_files(self) -> list[Path]:
        return [d / "cgroup.procs" for d in self.dirs]

    def usage(self) -> CgroupUsage:
        raise NotImplementedError

    def pids(self) -> list[int]:
        found: set[int] = set()
        for procs in self.join_files:
            found.update(int(p) for p in (_read(procs) or "").split())
        return sorted(found)

    def kill(self) -> None:
        """SIGKILL everything left in the cgroup."""
        for pid in self.pids():
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass

    def remove(self) -> list[str]:
        """Kill what is left, then remove every directory; the problems, if any (the
        kernel refuses with EBUSY until the last process is gone: retried a moment)."""
        self.kill()
        problems = []
        deadline = time.monotonic() + REMOVE_WAIT_S
        for directory in self.dirs:
            while True:
                try:
                    directory.rmdir()
                    break
                except FileNotFoundError:
                    break
                except OSError as exc:
                    if exc.errno == errno.EBUSY and time.monotonic() < deadline:
                        self.kill()
                        time.sleep(0.01)
                        continue
                    problems.append(f"{directory}: {exc.strerror}")
                    break
        return problems


class RunCgroupV2(RunCgroup):
    kind = "cgroup-v2"

    def __init__(self, path: Path, processes: int, memory_bytes: int):
        super().__init__([path])
        path.mkdir()
        _write(path / "pids.max", str(processes))
        _write(path / "memory.max", str(memory_bytes))
        if (path / "memory.swap.max").exists():
            _write(path / "memory.swap.max", "0")

    def usage(self) -> CgroupUsage:
        path = self.dirs[0]
        cpu = _keyed(_read(path / "cpu.stat")).get("usage_usec")
        peak = _read(path / "memory.peak")  # Linux 5.19 and later
        events = _keyed(_read(path / "memory.events"))
        return CgroupUsage(
            cpu_s=cpu / 1e6 if cpu is not None else None,
            peak_bytes=int(peak) if peak and peak.strip().isdigit() else None,
            oom_killed=events.get("oom_kill", 0) > 0,
        )

    def kill(self) -> None:
        kill_file = self.dirs[0] / "cgroup.kill"  # Linux 5.14: the whole tree at once
        if kill_file.exists() and self.dirs[0].exists():
            try:
                _write(kill_file, "1")
            except OSError:
                pass  # gone meanwhile; the per-process kill below covers an old kernel
        super().kill()


class RunCgroupV1(RunCgroup):
    kind = "cgroup-v1"

    def __init__(self, parents: dict[str, Path], name: str, processes: int, memory_bytes: int):
        # one directory per mounted hierarchy (cpu and cpuacct may share one)
        self.paths = {controller: parent / name for controller, parent in parents.items()}
        super().__init__(list(dict.fromkeys(self.paths.values())))
        try:
            for directory in self.dirs:
                directory.mkdir()
            _write(self.paths["pids"] / "pids.max", str(processes))
            memory = self.paths["memory"]
            _write(memory / "memory.limit_in_bytes", str(memory_bytes))
            if (memory / "memory.memsw.limit_in_bytes").exists():  # no swapping past it
                _write(memory / "memory.memsw.limit_in_bytes", str(memory_bytes))
        except OSError:
            self.remove()
            raise

    def usage(self) -> CgroupUsage:
        memory = self.paths["memory"]
        cpu = None
        if "cpuacct" in self.paths:
            raw = _read(self.paths["cpuacct"] / "cpuacct.usage")
            cpu = int(raw) / 1e9 if raw and raw.strip().isdigit() else None
        peak = _read(memory / "memory.max_usage_in_bytes")
        oom = _keyed(_read(memory / "memory.oom_control"))
        return CgroupUsage(
            cpu_s=cpu,
            peak_bytes=int(peak) if peak and peak.strip().isdigit() else None,
            oom_killed=oom.get("oom_kill", 0) > 0,
        )


_run_numbers = itertools.count()


def _run_name() -> str:
    return f"{CGROUP_PREFIX}{os.getpid()}-{next(_run_numbers)}"


@dataclass
class CgroupV2Tree:
    """A cgroup v2 directory whose children get `pids` and `memory`."""

    root: Path
    kind: str = "cgroup-v2"

    def create(self, processes: int, memory_bytes: int) -> RunCgroup:
        return RunCgroupV2(self.root / _run_name(), processes, memory_bytes)

    def describe(self) -> dict:
        return {"cgroup_root": str(self.root)}

    def parents(self) -> list[Path]:
        return [self.root]


@dataclass
class CgroupV1Trees:
    """The worker's current cgroup in each v1 hierarchy used: pids, memory, cpu, cpuacct."""

    parents_by_controller: dict[str, Path]
    kind: str = "cgroup-v1"

    def create(self, processes: int, memory_bytes: int) -> RunCgroup:
        return RunCgroupV1(self.parents_by_controller, _run_name(), processes, memory_bytes)

    def describe(self) -> dict:
        return {"cgroup_parents": {c: str(p) for c, p in self.parents_by_controller.items()}}

    def parents(self) -> list[Path]:
        return list(dict.fromkeys(self.parents_by_controller.values()))


# --- slots: one uid per concurrent run on the host --------------------------------------------


class UidPool:
    """Slot uids base .. base+slots-1, each held by one run at a time across every process of
    the host (an flock on `lock_dir/slot-N.lock`: released by the kernel if the holder dies)."""

    def __init__(self, base: int, slots: int, lock_dir: Path):
        self.base, self.slots, self.lock_dir = base, slots, lock_dir

    @contextmanager
    def slot(self, wait_s: float = SLOT_WAIT_S) -> Iterator[int]:
        """A free slot's uid for the duration; SandboxError after `wait_s` without one."""
        self.lock_dir.mkdir(parents=True, exist_ok=True)
        deadline = time.monotonic() + wait_s
        pause = 0.005
        while True:
            start = random.randrange(self.slots)  # spread the first tries of concurrent runs
            for offset in range(self.slots):
                index = (start + offset) % self.slots
                fd = os.open(self.lock_dir / f"slot-{index}.lock", os.O_RDWR | os.O_CREAT, 0o600)
                try:
                    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                except BlockingIOError:
                    os.close(fd)
                    continue
                try:
                    yield self.base + index
                finally:
                    os.close(fd)  # releases the lock
                return
            if time.monotonic() > deadline:
                raise SandboxError(f"no free sandbox slot of {self.slots} after {wait_s:g} s")
            time.sleep(pause)  # every slot busy: another run ends within its wall limit
            pause = min(pause * 2, 0.2)

    def uids(self) -> range:
        return range(self.base, self.base + self.slots)


# --- detection --------------------------------------------------------------------------------


@dataclass
class Isolation:
    """The mechanism in force, its cgroup tree (None for uid-pool) and its slot pool."""

    kind: str
    tree: CgroupV2Tree | CgroupV1Trees | None
    pool: UidPool
    why: list[str] = field(default_factory=list)  # why the mechanisms before it were not used

    def create_cgroup(self, processes: int, memory_bytes: int) -> RunCgroup | None:
        if self.tree is None:
            return None
        try:
            return self.tree.create(processes, memory_bytes)
        except OSError as exc:
            raise SandboxError(f"could not make the run's {self.kind} cgroup: {exc}") from exc

    def describe(self) -> dict:
        return {
            "isolation": self.kind,
            **(self.tree.describe() if self.tree is not None else {}),
            "slot_uids": f"{self.pool.base}-{self.pool.base + self.pool.slots - 1}",
            "lock_dir": str(self.pool.lock_dir),
            "not_used": self.why,
        }


def v2_tree(root: Path) -> CgroupV2Tree:
    """The v2 tree at `root`, its children given pids and memory (enabled in its
    cgroup.subtree_control if they are not yet); OSError/ValueError why it cannot be."""
    if not (root / "cgroup.controllers").exists():
        raise ValueError(f"{root} is not a cgroup v2 directory")
    available = (_read(root / "cgroup.controllers") or "").split()
    missing = [c for c in ("pids", "memory") if c not in available]
    if missing:
        raise ValueError(f"{root}: controllers {', '.join(missing)} not available")
    enabled = (_read(root / "cgroup.subtree_control") or "").split()
    wanted = [c for c in ("pids", "memory") if c not in enabled]
    if wanted:  # fails (EBUSY) when processes live in root itself: delegate an empty one
        _write(root / "cgroup.subtree_control", " ".join(f"+{c}" for c in wanted))
    return CgroupV2Tree(root)


def v1_parents(mountinfo: str, self_cgroup: str) -> dict[str, Path]:
    """{controller: this process's cgroup directory} for pids, memory and, when mounted, cpu
    and cpuacct, from /proc/self/mountinfo and /proc/self/cgroup; ValueError why not."""
    mounts: dict[str, tuple[Path, str]] = {}  # controller -> (mount point, root in the fs)
    for line in mountinfo.splitlines():
        fields, _, rest = line.partition(" - ")
        parts, tail = fields.split(), rest.split()
        if len(tail) < 3 or tail[0] != "cgroup":
            continue
        for controller in tail[2].split(","):
            mounts.setdefault(controller, (Path(parts[4]), parts[3]))
    paths: dict[str, str] = {}
    for line in self_cgroup.splitlines():
        _, controllers, path = line.split(":", 2)
        for controller in controllers.split(","):
            paths[controller] = path
    parents = {}
    for controller in ("pids", "memory", "cpu", "cpuacct"):
        if controller not in mounts or controller not in paths:
            if controller in ("pids", "memory"):
                raise ValueError(f"no cgroup v1 hierarchy of {controller} is mounted")
            continue
        mount, mount_root = mounts[controller]
        relative = os.path.relpath(paths[controller], mount_root)
        if relative.startswith(".."):
            raise ValueError(f"this process's {controller} cgroup is outside its mount {mount}")
        parents[controller] = mount / relative if relative != "." else mount
    return parents


def _probe(tree: CgroupV2Tree | CgroupV1Trees) -> None:
    """Make and remove one run cgroup; first sweep those a dead worker process left."""
    for parent in tree.parents():
        _sweep(parent)
    run = tree.create(PROCESS_OVERHEAD + 1, 64 * 1024 * 1024)
    problems = run.remove()
    if problems:
        raise OSError(f"could not remove a run cgroup: {'; '.join(problems)}")


def _sweep(parent: Path) -> None:
    """Remove the run cgroups of processes that no longer exist (a worker killed mid-run)."""
    for leftover in parent.glob(f"{CGROUP_PREFIX}*"):
        owner = leftover.name[len(CGROUP_PREFIX) :].split("-")[0]
        if owner.isdigit() and not Path(f"/proc/{owner}").exists():
            RunCgroup([leftover]).remove()


def _cgroup_v2(settings: IsolationSettings) -> CgroupV2Tree:
    """CODEOPT_CGROUP_ROOT is taken as delegated (checked, not probed: its first run says
    if it is not); the worker's own unified cgroup is probed with one run cgroup."""
    if settings.cgroup_root is not None:
        tree = v2_tree(settings.cgroup_root)
        _sweep(tree.root)
        return tree
    own = next((x for x in _read_self_cgroup().splitlines() if x.startswith("0::")), "0::/")
    tree = v2_tree(UNIFIED_MOUNT / own[3:].lstrip("/"))
    _probe(tree)
    return tree


def _cgroup_v1(settings: IsolationSettings) -> CgroupV1Trees:
    mountinfo = Path("/proc/self/mountinfo").read_text()
    trees = CgroupV1Trees(v1_parents(mountinfo, _read_self_cgroup()))
    _probe(trees)
    return trees


DETECTORS = {"cgroup-v2": _cgroup_v2, "cgroup-v1": _cgroup_v1, "uid-pool": lambda settings: None}
"""Each mechanism's cgroup tree on this host (None: no cgroup), or OSError/ValueError why not;
tried in MECHANISMS order."""


def detect(settings: IsolationSettings) -> Isolation:
    """The first usable mechanism (or the one `settings` insists on: SandboxUnavailable if
    that one cannot be used)."""
    pool = UidPool(settings.uid_base, settings.uid_slots, settings.lock_dir)
    why: list[str] = []
    wanted = MECHANISMS if settings.mechanism == "auto" else (settings.mechanism,)
    for kind in wanted:
        try:
            return Isolation(kind, DETECTORS[kind](settings), pool, why)
        except (OSError, ValueError) as exc:
            why.append(f"{kind}: {exc}")
    raise SandboxUnavailable(
        f"isolation {settings.mechanism} cannot be used here: {'; '.join(why)}"
    )


def _read_self_cgroup() -> str:
    return Path("/proc/self/cgroup").read_text()


_detect_lock = threading.Lock()


@cache
def _active(settings: IsolationSettings) -> Isolation:
    return detect(settings)


def active_isolation() -> Isolation:
    """The mechanism of this process, detected once per distinct setting (the environment
    is read each call, so a changed setting takes effect)."""
    settings = IsolationSettings.from_environ()
    with _detect_lock:
        return _active(settings)
