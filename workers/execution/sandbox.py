"""Run one command isolated: bubblewrap namespaces, an unprivileged user, resource limits.

Plain Python, no Django. Each run gets:
1. its own user, PID, mount, IPC, UTS, cgroup and network namespaces (`bwrap --unshare-all`):
   no network at all, not even loopback services;
2. the unprivileged uid/gid 65534 (`nobody`) both outside and inside, so RLIMIT_NPROC counts
   and the host's root-only files stay closed even if they were visible;
3. a read-only view of /usr, /lib, /lib64, /bin and nothing else of the host (no project
   tree, no database files, no /root, no /home), a private writable /box and /tmp;
4. an empty environment but PATH, HOME and LANG (no SECRET_KEY, DATABASE_URL or tokens);
5. rlimits: address space, processes, file size (also caps output), open files, no core
   dumps, a CPU-time backstop; a wall-clock limit that kills the whole process group;
6. when the run's first process ends, bwrap's PID namespace ends with it: nothing survives.
"""

from __future__ import annotations

import ctypes
import hashlib
import os
import resource
import select
import shutil
import signal
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path

NOBODY = 65534
READ_ONLY_SYSTEM = ("/usr", "/lib", "/lib64", "/bin", "/sbin", "/etc/alternatives")
SANDBOX_PATH = "/usr/local/bin:/usr/bin:/bin"


RUNNER_SOURCE = Path(__file__).with_name("runner.c")


class SandboxUnavailable(RuntimeError):
    """bubblewrap or a C compiler is missing, or namespaces cannot be created here."""


def runner_binary(cache_dir: Path | None = None) -> Path:
    """The compiled `runner.c`, built once per source version into a world-readable folder."""
    source = RUNNER_SOURCE.read_bytes()
    digest = hashlib.sha256(source).hexdigest()[:16]
    root = cache_dir or Path(os.environ.get("CODEOPT_RUNNER_DIR", "/tmp/codeopt-runner"))
    binary = root / digest / "runner"
    if binary.exists():
        return binary
    compiler = shutil.which("cc") or shutil.which("gcc")
    if compiler is None:
        raise SandboxUnavailable("no C compiler to build the sandbox runner")
    binary.parent.mkdir(parents=True, exist_ok=True)
    os.chmod(root, 0o755)
    os.chmod(binary.parent, 0o755)
    tmp = binary.with_suffix(f".{os.getpid()}")
    subprocess.run([compiler, "-O2", "-o", str(tmp), str(RUNNER_SOURCE)], check=True)
    os.chmod(tmp, 0o755)
    os.replace(tmp, binary)
    return binary


@dataclass(frozen=True)
class Limits:
    """Resource limits of one run. Defaults suit a competitive-programming test."""

    cpu_seconds: float = 2.0  # the verdict's time limit (CPU time of the process tree)
    wall_seconds: float = 6.0  # wall-clock kill: sleeping or blocked programs
    memory_mb: int = 512  # address space of each process
    processes: int = 64  # RLIMIT_NPROC for the sandbox user
    output_mb: int = 64  # any file the run writes, stdout included
    open_files: int = 64

    def scaled(self, factor: float) -> Limits:
        """The same limits with `factor` times the time (for instruction counting)."""
        return Limits(
            self.cpu_seconds * factor,
            self.wall_seconds * factor,
            self.memory_mb * 4,
            self.processes,
            self.output_mb,
            self.open_files,
        )


@dataclass
class RunResult:
    exit_code: int | None  # None when killed by a signal
    signal: int | None
    cpu_s: float  # user + sys of the whole process tree
    wall_s: float
    peak_kb: int  # largest resident set of any process of the tree
    timed_out_wall: bool
    stdout_path: Path
    stderr_tail: str
    extra: dict = field(default_factory=dict)

    @property
    def cpu_limit_hit(self) -> bool:
        return self.signal in (signal.SIGXCPU, signal.SIGKILL) and not self.timed_out_wall

    @property
    def output_limit_hit(self) -> bool:
        return self.signal == signal.SIGXFSZ


_PR_SET_CHILD_SUBREAPER = 36
_subreaper = False


def _adopt_orphans() -> None:
    """Make this process the subreaper of what it starts. bwrap's PID-namespace set-up
    leaves an intermediate process to be reaped by whoever adopts it; under an init that
    does not reap (some containers), each run would leave a zombie behind."""
    global _subreaper
    if not _subreaper:
        ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
        _subreaper = True


def _reap_orphaned_bwraps() -> None:
    """Reap zombie bwrap processes among this process's own children (any thread's)."""
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
        if comm == "bwrap" and state == "Z":
            try:
                os.waitpid(int(child), os.WNOHANG)
            except ChildProcessError:
                pass


def bwrap_path() -> str:
    path = shutil.which("bwrap")
    if path is None:
        raise SandboxUnavailable("bubblewrap (bwrap) is not installed: apt-get install bubblewrap")
    return path


def _set_limits(limits: Limits):
    memory = limits.memory_mb * 1024 * 1024
    output = limits.output_mb * 1024 * 1024
    # The CPU backstop: SIGXCPU at the limit (+1 s grace), SIGKILL a second later.
    cpu = int(limits.cpu_seconds) + 1

    def apply() -> None:
        os.setsid()
        resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
        resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 1))
        resource.setrlimit(resource.RLIMIT_FSIZE, (output, output))
        resource.setrlimit(resource.RLIMIT_NOFILE, (limits.open_files, limits.open_files))
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
        resource.setrlimit(resource.RLIMIT_NPROC, (limits.processes, limits.processes))
        os.setgroups([])
        os.setgid(NOBODY)
        os.setuid(NOBODY)

    return apply


def prepare_box(root: Path) -> Path:
    """A fresh private directory the sandbox user may write to; `root` and its parents
    must let that user pass (mode o+x), which this makes sure of for `root`."""
    box = root / "box"
    box.mkdir(parents=True, exist_ok=False)
    os.chmod(root, 0o711)
    if os.geteuid() == 0:
        os.chown(box, NOBODY, NOBODY)
    return box


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
) -> RunResult:
    """Run `argv` inside the sandbox with `box` mounted at /box (its working directory).

    `read_only` paths are mounted read-only at the same place, or at `dest` for a
    (path, dest) pair (a test's input for a custom checker). stdout and stderr go to files
    opened here, so FSIZE caps them too.
    """
    runner = runner_binary()
    _adopt_orphans()
    command = [bwrap_path(), "--unshare-all", "--die-with-parent", "--new-session"]
    for path in READ_ONLY_SYSTEM:
        if Path(path).exists():
            command += ["--ro-bind", path, path]
    # fmt: off
    command += [
        "--ro-bind", str(runner.parent), "/.runner",
        "--proc", "/proc", "--dev", "/dev", "--tmpfs", "/tmp",
        "--bind", str(box), "/box", "--chdir", "/box",
        "--clearenv", "--setenv", "PATH", SANDBOX_PATH, "--setenv", "HOME", "/box",
        "--setenv", "LANG", "C.UTF-8",
    ]
    # fmt: on
    for item in read_only:  # after /tmp and /box, so that those do not hide them
        source, dest = (item, str(item)) if isinstance(item, Path) else item
        command += ["--ro-bind", str(source), dest]
    for name, value in (env or {}).items():
        command += ["--setenv", name, value]

    report_read, report_write = os.pipe()
    command += ["--", "/.runner/runner", str(report_write), "--", *argv]
    stdin = open(stdin_path, "rb") if stdin_path else subprocess.DEVNULL  # noqa: SIM115
    try:
        with open(stdout_path, "wb") as out, open(stderr_path, "wb") as err:
            started = time.monotonic()
            proc = subprocess.Popen(
                command,
                stdin=stdin,
                stdout=out,
                stderr=err,
                preexec_fn=_set_limits(limits),
                pass_fds=(report_write,),
                env={},
            )
            os.close(report_write)
            timed_out = not _wait_exit(proc, limits.wall_seconds)
            if timed_out:
                _kill_namespace(proc.pid)
                try:
                    proc.wait(timeout=5)
                except subprocess.TimeoutExpired:
                    _kill_group(proc.pid)
                    proc.wait()
            wall = time.monotonic() - started
        with os.fdopen(report_read, "r") as report:
            line = report.read().strip()
    finally:
        if stdin is not subprocess.DEVNULL:
            stdin.close()
    _kill_group(proc.pid)
    _reap_orphaned_bwraps()
    if line:
        status, utime_us, stime_us, maxrss = (int(x) for x in line.split())
        exit_code = os.WEXITSTATUS(status) if os.WIFEXITED(status) else None
        sig = os.WTERMSIG(status) if os.WIFSIGNALED(status) else None
        cpu = (utime_us + stime_us) / 1e6
    else:  # killed before the runner could report: the wall clock ran out, or worse
        exit_code, sig, cpu, maxrss = None, signal.SIGKILL, float("nan"), 0
    return RunResult(
        exit_code=exit_code,
        signal=sig,
        cpu_s=cpu,
        wall_s=wall,
        peak_kb=maxrss,
        timed_out_wall=timed_out,
        stdout_path=stdout_path,
        stderr_tail=_tail(stderr_path),
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
