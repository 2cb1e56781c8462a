"""Run one command isolated: bubblewrap namespaces, a uid and a cgroup of its own, limits.

Plain Python, no Django. Each run gets:
1. its own PID, mount, IPC, UTS, cgroup and network namespaces (bwrap, run as root without a
   user namespace): no network at all, not even loopback services;
2. a uid/gid of its own concurrent slot (isolation.UidPool) for the program, and the runner
   above it as uid 0 with four capabilities: the program can neither signal the runner nor
   share an RLIMIT_NPROC count with another run;
3. a cgroup of its own where the host allows (isolation.py): process and memory budgets of
   the run alone, the tree's CPU time, peak memory and OOM kills read from outside;
4. a read-only view of /usr, /lib, /lib64, /bin and nothing else of the host (no project
   tree, no database files, no /root, no /home); a private size-capped /tmp and, unless the
   caller keeps what the run writes (a compiler's output), a size-capped scratch /box;
5. an empty environment but PATH, HOME and LANG (no SECRET_KEY, DATABASE_URL or tokens);
6. rlimits: processes, file size (also caps output), open files, no core dumps, a CPU-time
   backstop, address space where no memory cgroup caps the tree; a wall-clock limit that
   kills the whole run;
7. when the run's first process ends, bwrap's PID namespace ends with it: nothing survives.
A failure of the sandbox itself raises SandboxError: it is never the program's verdict.
"""

from __future__ import annotations

import ctypes
import dataclasses
import hashlib
import logging
import os
import select
import shutil
import signal
import subprocess
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

from execution.isolation import (
    PROCESS_OVERHEAD,
    RunCgroup,
    SandboxError,
    SandboxUnavailable,
    active_isolation,
)

__all__ = [
    "Limits",
    "RunResult",
    "SandboxError",  # defined with the isolation; raised here
    "SandboxUnavailable",
    "prepare_box",
    "run_sandboxed",
    "launcher_binary",
    "runner_binary",
]

log = logging.getLogger(__name__)
READ_ONLY_SYSTEM = ("/usr", "/lib", "/lib64", "/bin", "/sbin", "/etc/alternatives")
SANDBOX_PATH = "/usr/local/bin:/usr/bin:/bin"
# What the runner needs, and nothing else: become the slot uid, kill the program's leftovers.
RUNNER_CAPABILITIES = ("CAP_SETUID", "CAP_SETGID", "CAP_KILL")
NAMESPACES = (
    "--unshare-pid",
    "--unshare-ipc",
    "--unshare-net",
    "--unshare-uts",
    "--unshare-cgroup",
)

RUNNER_SOURCE = Path(__file__).with_name("runner.c")
LAUNCHER_SOURCE = Path(__file__).with_name("launcher.c")


def _compiled(source_path: Path, name: str, cache_dir: Path | None) -> Path:
    """`source_path` compiled once per source version into a world-readable folder."""
    source = source_path.read_bytes()
    digest = hashlib.sha256(source).hexdigest()[:16]
    root = cache_dir or Path(os.environ.get("CODEOPT_RUNNER_DIR", "/tmp/codeopt-runner"))
    binary = root / digest / name
    if binary.exists():
        return binary
    compiler = shutil.which("cc") or shutil.which("gcc")
    if compiler is None:
        raise SandboxUnavailable(f"no C compiler to build the sandbox's {name}")
    binary.parent.mkdir(parents=True, exist_ok=True)
    os.chmod(root, 0o755)
    os.chmod(binary.parent, 0o755)
    # A name of its own per caller: threads of one process compile at once on a fresh host.
    fd, tmp = tempfile.mkstemp(prefix=f".{name}.", dir=binary.parent)
    os.close(fd)
    try:
        subprocess.run([compiler, "-O2", "-o", tmp, str(source_path)], check=True)
        os.chmod(tmp, 0o755)
        os.replace(tmp, binary)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)
    return binary


def runner_binary(cache_dir: Path | None = None) -> Path:
    """The compiled `runner.c`: the first process inside the sandbox."""
    return _compiled(RUNNER_SOURCE, "runner", cache_dir)


def launcher_binary(cache_dir: Path | None = None) -> Path:
    """The compiled `launcher.c`: starts bwrap in the run's cgroup under its limits."""
    return _compiled(LAUNCHER_SOURCE, "launcher", cache_dir)


@dataclass(frozen=True)
class Limits:
    """Resource limits of one run. Defaults suit a competitive-programming test."""

    cpu_seconds: float = 2.0  # the verdict's time limit (CPU time of the process tree)
    wall_seconds: float = 6.0  # wall-clock kill: sleeping or blocked programs
    memory_mb: int = 512  # the run's tree (memory cgroup); each process's address space without
    processes: int = 64  # the run's processes (pids cgroup) and its slot uid's (RLIMIT_NPROC)
    output_mb: int = 64  # any file the run writes, stdout included
    open_files: int = 64
    scratch_mb: int = 64  # each of /tmp and the scratch /box (tmpfs, counted as memory too)

    def scaled(self, factor: float) -> Limits:
        """The same limits with `factor` times the time (for instruction counting)."""
        return dataclasses.replace(
            self,
            cpu_seconds=self.cpu_seconds * factor,
            wall_seconds=self.wall_seconds * factor,
            memory_mb=self.memory_mb * 4,
        )


@dataclass
class RunResult:
    exit_code: int | None  # None when killed by a signal
    signal: int | None
    cpu_s: float  # user + sys of the program's whole process tree (the runner's rusage)
    wall_s: float
    peak_kb: int  # the tree's peak memory (cgroup), else the largest resident set of a process
    timed_out_wall: bool
    stdout_path: Path
    stderr_tail: str
    memory_limit_hit: bool | None = None  # the kernel OOM-killed for the run's cgroup; None:
    # no memory cgroup here, the caller infers it from what the program printed
    isolation: str = ""  # the mechanism that kept this run apart (isolation.MECHANISMS)
    uid: int | None = None  # the slot uid the program ran as
    extra: dict = field(default_factory=dict)  # cgroup_cpu_s: CPU of the cgroup, bwrap included

    @property
    def cpu_limit_hit(self) -> bool:
        return self.signal in (signal.SIGXCPU, signal.SIGKILL) and not self.timed_out_wall

    @property
    def output_limit_hit(self) -> bool:
        return self.signal == signal.SIGXFSZ


_PR_SET_CHILD_SUBREAPER = 36
_subreaper = False
_own_lock = threading.Lock()
_own_pids: set[int] = set()
"""The sandboxes this process started and has not waited for yet (any thread's): the orphan
reaper leaves them to the thread that waits for them. Without it, one thread's reaper took
another thread's bwrap the moment it exited, and that thread's wait found no process."""


def _adopt_orphans() -> None:
    """Make this process the subreaper of what it starts. bwrap's PID-namespace set-up
    leaves an intermediate process to be reaped by whoever adopts it; under an init that
    does not reap (some containers), each run would leave a zombie behind."""
    global _subreaper
    if not _subreaper:
        ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
        _subreaper = True


def _reap_orphaned_bwraps() -> None:
    """Reap zombie bwrap processes among this process's own children (any thread's) that no
    thread of this process waits for (the orphans bwrap's set-up leaves to its subreaper)."""
    with _own_lock:
        _reap_orphans_unlocked()


def _reap_orphans_unlocked() -> None:
    me = os.getpid()
    children: list[str] = []
    for task in Path(f"/proc/{me}/task").iterdir():
        try:
            children += (task / "children").read_text().split()
        except OSError:
            continue
    for child in children:
        try:
            stat = Path(f"/proc/{child}/stat").read_text()
        except OSError:
            continue
        # "pid (comm) state ppid ..."
        comm = stat[stat.index("(") + 1 : stat.rindex(")")]
        state = stat[stat.rindex(")") + 2 :].split()[0]
        if comm == "bwrap" and state == "Z" and int(child) not in _own_pids:
            try:
                os.waitpid(int(child), os.WNOHANG)
            except ChildProcessError:
                pass


def _reap_children(pids: list[int]) -> None:
    """Wait for those of `pids` that are this process's children (killed already): the
    helper process bwrap leaves to its subreaper is still exiting when the run ends, and its
    cgroup cannot be removed until it is reaped (about 2 ms of retries otherwise)."""
    me = os.getpid()
    for pid in pids:
        try:
            stat = Path(f"/proc/{pid}/stat").read_text()
            if int(stat[stat.rindex(")") + 2 :].split()[1]) == me:
                os.waitpid(pid, 0)
        except (OSError, ChildProcessError):  # gone, or reaped meanwhile
            continue


def bwrap_path() -> str:
    path = shutil.which("bwrap")
    if path is None:
        raise SandboxUnavailable("bubblewrap (bwrap) is not installed: apt-get install bubblewrap")
    return path


def _launch_argv(limits: Limits, join_files: list[Path], cap_address_space: bool) -> list[str]:
    """launcher.c's arguments before `--`: the rlimits the program inherits (address space
    only where no memory cgroup caps the tree; a CPU-time backstop at the limit + 1 s,
    SIGKILL a second later) and the cgroup files it joins."""
    memory = limits.memory_mb * 1024 * 1024 if cap_address_space else 0
    return [
        str(launcher_binary()),
        str(memory),
        str(int(limits.cpu_seconds) + 1),
        str(limits.output_mb * 1024 * 1024),
        str(limits.open_files),
        str(limits.processes),
        *map(str, join_files),
    ]


def prepare_box(root: Path) -> Path:
    """A fresh private directory for a run's files; `root` and its parents must let the
    sandbox's uids pass (mode o+x), which this makes sure of for `root`. The run's slot uid
    is given the box when the run starts (run_sandboxed)."""
    box = root / "box"
    box.mkdir(parents=True, exist_ok=False)
    os.chmod(root, 0o711)
    return box


def _give_box(box: Path, uid: int) -> None:
    """The box and everything in it to the slot uid (and its gid, the same number)."""
    if os.geteuid() != 0:
        return
    os.chown(box, uid, uid)
    for folder, dirs, files in os.walk(box):
        for name in dirs + files:
            os.chown(os.path.join(folder, name), uid, uid, follow_symlinks=False)


def _bwrap_command(
    runner: Path,
    box: Path,
    limits: Limits,
    read_only: tuple[Path | tuple[Path, str], ...],
    env: dict[str, str] | None,
    keep_box_writes: bool,
) -> list[str]:
    scratch = str(limits.scratch_mb * 1024 * 1024)
    command = [bwrap_path(), *NAMESPACES, "--die-with-parent", "--new-session", "--cap-drop", "ALL"]
    for capability in RUNNER_CAPABILITIES:
        command += ["--cap-add", capability]
    for path in READ_ONLY_SYSTEM:
        if Path(path).exists():
            command += ["--ro-bind", path, path]
    # fmt: off
    command += [
        "--ro-bind", str(runner.parent), "/.runner",
        "--proc", "/proc", "--dev", "/dev",
        "--perms", "1777", "--size", scratch, "--tmpfs", "/tmp",
    ]
    if keep_box_writes:
        command += ["--bind", str(box), "/box"]
    else:  # the run's files read-only in a scratch /box that goes with the run
        command += ["--perms", "0777", "--size", scratch, "--tmpfs", "/box"]
        for entry in sorted(box.iterdir()):
            command += ["--ro-bind", str(entry), f"/box/{entry.name}"]
    command += [
        "--chdir", "/box",
        "--clearenv", "--setenv", "PATH", SANDBOX_PATH, "--setenv", "HOME", "/box",
        "--setenv", "LANG", "C.UTF-8",
    ]
    # fmt: on
    made = {Path(p) for p in ("/", "/tmp", "/box")}
    fixed = [Path(p) for p in (*READ_ONLY_SYSTEM, "/.runner", "/proc", "/dev")]
    for item in read_only:  # after /tmp and /box, so that those do not hide them
        source, dest = (item, str(item)) if isinstance(item, Path) else item
        # bwrap run as root makes missing parents mode 0700, which the slot uid cannot pass
        for parent in reversed(Path(dest).parents):
            if parent not in made and not any(parent.is_relative_to(f) for f in fixed):
                command += ["--perms", "0755", "--dir", str(parent)]
                made.add(parent)
        command += ["--ro-bind", str(source), dest]
    for name, value in (env or {}).items():
        command += ["--setenv", name, value]
    return command


def run_sandboxed(
    argv: list[str],
    *,
    box: Path,
    limits: Limits,
    stdin_path: Path | None,
    stdout_path: Path,
    stderr_path: Path,
    read_only: tuple[Path | tuple[Path, str], ...] = (),
    env: dict[str, str] | None = None,
    keep_box_writes: bool = False,
) -> RunResult:
    """Run `argv` inside the sandbox with `box`'s files at /box (its working directory).

    With `keep_box_writes`, /box is `box` itself, writable, and what the run writes there
    stays (a compiler's output, a validator's feedback); otherwise /box is a scratch tmpfs
    of `limits.scratch_mb` holding `box`'s files read-only. `read_only` paths are mounted
    read-only at the same place, or at `dest` for a (path, dest) pair (a test's input for a
    custom checker). stdout and stderr go to files opened here, so FSIZE caps them too.

    1. Take a free slot uid of the host (the program runs as it) and give it the box.
    2. Make the run's cgroup, if the host allows one (isolation.active_isolation()).
    3. Start bwrap in that cgroup; the runner inside starts the program and reports.
    4. Read the runner's report and the cgroup's figures; remove the cgroup.
    Raises SandboxError when the sandbox itself failed (bwrap could not start, the runner
    could not start the program, or its report is missing though the wall clock did not
    run out), SandboxUnavailable when this host cannot run sandboxes at all.
    """
    runner = runner_binary()
    _adopt_orphans()
    isolation = active_isolation()
    with isolation.pool.slot() as uid:
        _give_box(box, uid)
        cgroup = isolation.create_cgroup(
            limits.processes + PROCESS_OVERHEAD, limits.memory_mb * 1024 * 1024
        )
        try:
            command = _bwrap_command(runner, box, limits, read_only, env, keep_box_writes)
            result = _run(
                command, runner, uid, argv, limits, cgroup, stdin_path, stdout_path, stderr_path
            )
        finally:
            if cgroup is not None:
                cgroup.kill()
                _reap_children(cgroup.pids())  # bwrap's exiting helper: EBUSY until reaped
                for problem in cgroup.remove():
                    log.warning("run cgroup left behind: %s", problem)
    result.isolation, result.uid = isolation.kind, uid
    return result


def _run(
    command: list[str],
    runner: Path,
    uid: int,
    argv: list[str],
    limits: Limits,
    cgroup: RunCgroup | None,
    stdin_path: Path | None,
    stdout_path: Path,
    stderr_path: Path,
) -> RunResult:
    report_read, report_write = os.pipe()
    join_files = cgroup.join_files if cgroup is not None else []
    launch = _launch_argv(limits, join_files, cap_address_space=cgroup is None)
    command = [*launch, "--", *command, "--", "/.runner/runner", str(report_write), str(uid)]
    command += [str(uid), "--", *argv]
    stdin = open(stdin_path, "rb") if stdin_path else subprocess.DEVNULL  # noqa: SIM115
    try:
        with open(stdout_path, "wb") as out, open(stderr_path, "wb") as err:
            started = time.monotonic()
            try:
                with _own_lock:  # registered before any reaper can see it exit
                    proc = subprocess.Popen(
                        command,
                        stdin=stdin,
                        stdout=out,
                        stderr=err,
                        pass_fds=(report_write,),
                        env={},
                    )
                    _own_pids.add(proc.pid)
            except (OSError, subprocess.SubprocessError) as exc:
                os.close(report_read)
                raise SandboxError(f"bwrap could not start: {type(exc).__name__}: {exc}") from exc
            finally:
                os.close(report_write)
            try:
                timed_out = not _wait_exit(proc, limits.wall_seconds)
                if timed_out:
                    if cgroup is not None:
                        cgroup.kill()
                    _kill_namespace(proc.pid)
                    try:
                        proc.wait(timeout=5)
                    except subprocess.TimeoutExpired:
                        _kill_group(proc.pid)
                        proc.wait()
            finally:
                with _own_lock:
                    _own_pids.discard(proc.pid)
            wall = time.monotonic() - started
        with os.fdopen(report_read, "r") as report:
            line = report.read().strip()
    finally:
        if stdin is not subprocess.DEVNULL:
            stdin.close()
    _kill_group(proc.pid)
    _reap_orphaned_bwraps()
    usage = cgroup.usage() if cgroup is not None else None
    words = line.split()
    if words[:1] == ["setup"]:
        stage, code = (words[1:] + ["?", "0"])[:2]
        reason = os.strerror(int(code)) if code.isdigit() else code
        raise SandboxError(f"the runner could not start the program: {stage}: {reason}")
    if words[:1] == ["exit"] and len(words) == 5:
        status, utime_us, stime_us, maxrss = (int(x) for x in words[1:])
        exit_code = os.WEXITSTATUS(status) if os.WIFEXITED(status) else None
        sig = os.WTERMSIG(status) if os.WIFSIGNALED(status) else None
        cpu = (utime_us + stime_us) / 1e6
    elif timed_out:  # killed by the wall clock before the runner could report
        exit_code, sig, maxrss = None, signal.SIGKILL, 0
        cpu = usage.cpu_s if usage is not None and usage.cpu_s is not None else float("nan")
    else:
        raise SandboxError(
            f"no report from the runner (bwrap exit {proc.returncode}): "
            f"{_tail(stderr_path, 300).strip()}"
        )
    peak_kb = maxrss
    if usage is not None and usage.peak_bytes is not None:
        peak_kb = usage.peak_bytes // 1024
    return RunResult(
        exit_code=exit_code,
        signal=sig,
        cpu_s=cpu,
        wall_s=wall,
        peak_kb=peak_kb,
        timed_out_wall=timed_out,
        stdout_path=stdout_path,
        stderr_tail=_tail(stderr_path),
        memory_limit_hit=usage.oom_killed if usage is not None else None,
        extra={"cgroup_cpu_s": usage.cpu_s} if usage is not None else {},
    )


def _wait_exit(proc: subprocess.Popen, seconds: float) -> bool:
    """Wait up to `seconds` for `proc` to exit, woken by the kernel the moment it does (a
    pidfd), not by polling; True if it exited. Popen.wait(timeout) polls with sleeps that
    added up to 15 ms to every run."""
    pidfd = os.pidfd_open(proc.pid)
    try:
        poller = select.poll()
        poller.register(pidfd, select.POLLIN)
        if not poller.poll(seconds * 1000):
            return False
    finally:
        os.close(pidfd)
    proc.wait()
    return True


def _kill_namespace(bwrap_pid: int) -> None:
    """SIGKILL the sandbox's PID-namespace init (bwrap's child): the kernel then kills every
    process in the namespace, and bwrap exits only once they are all gone."""
    try:
        children = Path(f"/proc/{bwrap_pid}/task/{bwrap_pid}/children").read_text().split()
    except OSError:
        children = []
    for child in children:
        try:
            os.kill(int(child), signal.SIGKILL)
        except ProcessLookupError:
            pass
    if not children:
        _kill_group(bwrap_pid)


def _kill_group(pgid: int) -> None:
    try:
        os.killpg(pgid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def _tail(path: Path, limit: int = 2000) -> str:
    with open(path, "rb") as handle:
        handle.seek(0, os.SEEK_END)
        size = handle.tell()
        handle.seek(max(0, size - limit))
        return handle.read().decode(errors="replace")
