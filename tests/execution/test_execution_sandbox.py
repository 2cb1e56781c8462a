"""The execution engine on real programs: verdicts, measurement modes, and hostile programs
that must be contained (right verdict, nothing left running, the host untouched)."""

from __future__ import annotations

import os
import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from execution.engine import Case, execute
from execution.isolation import active_isolation
from execution.sandbox import Limits, runner_binary
from tests.sandbox_support import sandbox_processes

ROOT = Path(__file__).resolve().parents[2]
LIMITS = Limits(cpu_seconds=1, wall_seconds=3, memory_mb=256, output_mb=1)


@pytest.fixture
def sum_tests(tmp_path) -> list[Case]:
    (tmp_path / "1.in").write_text("3\n1 2 3\n")
    (tmp_path / "1.ans").write_text("6\n")
    (tmp_path / "2.in").write_text("2\n5 5\n")
    (tmp_path / "2.ans").write_text("10\n")
    return [Case(n, tmp_path / f"{n}.in", tmp_path / f"{n}.ans") for n in ("1", "2")]


@pytest.fixture
def one_test(sum_tests) -> list[Case]:
    return sum_tests[:1]


PY_SUM = "n = int(input())\nprint(sum(map(int, input().split())))\n"
CPP_SUM = (
    '#include <cstdio>\nint main(){int n; long long s=0, x; scanf("%d", &n);'
    'for(int i=0;i<n;i++){scanf("%lld", &x); s+=x;} printf("%lld\\n", s);}\n'
)


@pytest.mark.parametrize(("source", "language"), [(PY_SUM, "python"), (CPP_SUM, "cpp")])
def test_a_correct_program_is_ok_with_times_and_memory(source, language, sum_tests):
    report = execute(source, language, sum_tests, limits=LIMITS, repeats=3)
    assert report.verdict == "OK"
    for result in report.tests:
        assert result.verdict == "OK" and len(result.cpu_samples) == 3
        assert 0 < result.cpu_s < 1 and 0 < result.wall_s < 3 and result.peak_kb > 0


def test_a_wrong_answer_says_which_token(one_test):
    report = execute("print(7)", "python", one_test, limits=LIMITS)
    assert report.verdict == "WRONG_ANSWER"
    assert "expected '6', got '7'" in report.tests[0].message
    assert len(report.tests[0].cpu_samples) == 1  # a failing test is not repeated


def test_stop_at_failure_runs_a_failed_program_on_no_later_test(sum_tests):
    from execution.engine import Program, measure

    wrong_first = "print(6)"  # right on test 1 only: fails test 2
    wrong_at_once = "print(0)"
    programs = [
        Program(name, code, "python")
        for name, code in (("sum", PY_SUM), ("six", wrong_first), ("zero", wrong_at_once))
    ]
    tests = list(reversed(sum_tests))  # test 2 first: "six" fails it, then stops
    stopped = measure(programs, tests, limits=LIMITS, repeats=1, stop_at_failure=True)
    assert [r.verdict for r in stopped["sum"].tests] == ["OK", "OK"]
    assert [r.verdict for r in stopped["six"].tests] == ["WRONG_ANSWER"]
    assert [r.verdict for r in stopped["zero"].tests] == ["WRONG_ANSWER"]
    assert (stopped["six"].verdict, stopped["zero"].verdict) == ("WRONG_ANSWER",) * 2
    every = measure(programs, tests, limits=LIMITS, repeats=1)  # the default runs them all
    assert [r.verdict for r in every["six"].tests] == ["WRONG_ANSWER", "OK"]
    assert every["six"].verdict == "WRONG_ANSWER"


def test_a_compile_error_carries_the_compilers_message(one_test):
    report = execute("int main( {", "cpp", one_test, limits=LIMITS)
    assert report.verdict == "COMPILE_ERROR" and "error" in report.compile_message


def test_instruction_counts_are_identical_between_repeats(one_test):
    first = execute(CPP_SUM, "cpp", one_test, limits=LIMITS, mode="instructions")
    second = execute(CPP_SUM, "cpp", one_test, limits=LIMITS, mode="instructions")
    assert first.verdict == "OK" and first.tests[0].instructions > 10_000
    assert first.tests[0].instructions == second.tests[0].instructions


def test_a_runtime_error_reports_the_exit(one_test):
    report = execute("raise SystemExit(3)", "python", one_test, limits=LIMITS)
    assert report.verdict == "RUNTIME_ERROR" and report.tests[0].exit_code == 3


# --- hostile programs: each contained, with the right verdict, nothing left alive ---------

HOSTILE = {
    "fork bomb": (
        "import os\nwhile True:\n    try:\n        os.fork()\n    except OSError:\n        pass\n",
        "python",
        {"TIME_LIMIT", "RUNTIME_ERROR"},
    ),
    "memory bomb": ("x = bytearray(2 * 1024 ** 3)\n", "python", {"MEMORY_LIMIT"}),
    "infinite loop": ("while True:\n    pass\n", "python", {"TIME_LIMIT"}),
    "sleeping forever": ("import time\ntime.sleep(10 ** 6)\n", "python", {"TIME_LIMIT"}),
    "infinite output": (
        "import sys\nwhile True:\n    sys.stdout.write('x' * 65536)\n",
        "python",
        {"OUTPUT_LIMIT"},
    ),
    "deep recursion": (
        "import sys\nsys.setrecursionlimit(10 ** 9)\ndef f(n):\n    return f(n + 1) + 1\nf(0)\n",
        "python",
        {"RUNTIME_ERROR", "MEMORY_LIMIT", "TIME_LIMIT"},
    ),
    "daemon outliving the run": (
        "import os, time\nif os.fork() == 0:\n    os.setsid()\n"
        "    if os.fork() == 0:\n        time.sleep(10 ** 6)\n"
        "    os._exit(0)\nprint(6)\n",
        "python",
        {"OK"},
    ),
    "killing its parent": (  # refused (EPERM): the runner is another uid
        "import os, signal\nos.kill(os.getppid(), signal.SIGKILL)\nprint(6)\n",
        "python",
        {"RUNTIME_ERROR"},
    ),
    "c++ fork bomb": (
        "#include <unistd.h>\nint main(){ while(1) fork(); }\n",
        "cpp",
        {"TIME_LIMIT", "RUNTIME_ERROR"},
    ),
    "c++ infinite loop": (
        "int main(){ volatile long x = 0; while(1) x++; }\n",
        "cpp",
        {"TIME_LIMIT"},
    ),
    "c++ memory bomb": (
        "#include <vector>\n"
        "int main(){ std::vector<char> v(std::size_t(4) << 30, 1); return v[7]; }\n",
        "cpp",
        {"MEMORY_LIMIT"},
    ),
    "c++ daemon outliving the run": (
        "#include <unistd.h>\n#include <cstdio>\nint main(){ if (fork() == 0) { setsid();"
        ' if (fork() == 0) { sleep(100000); } _exit(0); } puts("6"); }\n',
        "cpp",
        {"OK"},
    ),
    "compile bomb": (
        "template<int N> struct F { enum { v = F<N - 1>::v + F<N - 2>::v }; };\n"
        "int main(){ return F<100000>::v; }\n",
        "cpp",
        {"COMPILE_ERROR"},
    ),
    "huge source": ("x = 1\n" * 300_000, "python", {"COMPILE_ERROR"}),
}


@pytest.mark.parametrize("name", list(HOSTILE))
def test_a_hostile_program_is_contained(name, one_test):
    source, language, verdicts = HOSTILE[name]
    report = execute(source, language, one_test, limits=LIMITS, repeats=1)
    assert report.verdict in verdicts, (report.verdict, report.tests[0].message)
    assert sandbox_processes() == []


PROBES = {
    "reading the project tree": (
        f"import os\nprint(os.path.exists({str(ROOT)!r}), os.path.exists('/root'))\n"
    ),
    "reading the server environment": "import os\nprint(sorted(os.environ))\n",
    "reading /proc/1/environ": "print(open('/proc/1/environ', 'rb').read())\n",
    "connecting to PostgreSQL and Redis": (
        "import socket\nfor port in (5432, 6379):\n    try:\n"
        "        socket.create_connection(('127.0.0.1', port), timeout=1)\n"
        "        print('open', port)\n"
        "    except OSError as e:\n        print('closed', port)\n"
    ),
}


CPP_PROBE = """#include <cstdio>
#include <cstdlib>
#include <arpa/inet.h>
#include <sys/socket.h>
#include <unistd.h>
int main() {
  const char *leak = getenv("SECRET_KEY");
  printf("env %s\\n", leak ? leak : "none");
  FILE *f = fopen("/proc/1/environ", "r");
  if (f) { char buf[4096]; size_t n = fread(buf, 1, sizeof buf - 1, f); buf[n] = 0;
           for (size_t i = 0; i < n; i++) if (!buf[i]) buf[i] = ' '; printf("pid1 %s\\n", buf); }
  printf("project %s\\n", access("%PROJECT%", F_OK) == 0 ? "True" : "absent");
  FILE *out = fopen("/usr/escaped-cpp.txt", "w");
  printf("write %s\\n", out ? "True" : "refused");
  int ports[] = {5432, 6379};
  for (int port : ports) {
    int s = socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in a{}; a.sin_family = AF_INET; a.sin_port = htons(port);
    inet_pton(AF_INET, "127.0.0.1", &a.sin_addr);
    printf("%s %d\\n", connect(s, (sockaddr *)&a, sizeof a) == 0 ? "open" : "closed", port);
  }
}
""".replace("%PROJECT%", str(ROOT))


def test_a_cpp_probe_sees_nothing_of_the_host(one_test, monkeypatch):
    monkeypatch.setenv("SECRET_KEY", "do-not-leak-this")
    report = execute(CPP_PROBE, "cpp", one_test, limits=LIMITS, repeats=1)
    seen = report.tests[0].stdout_excerpt
    assert "env none" in seen and "do-not-leak-this" not in seen
    assert "project absent" in seen and "write refused" in seen
    assert "closed 5432" in seen and "closed 6379" in seen and "open" not in seen.split()
    assert not Path("/usr/escaped-cpp.txt").exists()
    assert sandbox_processes() == []


@pytest.mark.parametrize("name", list(PROBES))
def test_a_probe_sees_nothing_of_the_host(name, one_test, monkeypatch):
    monkeypatch.setenv("SECRET_KEY", "do-not-leak-this")
    report = execute(PROBES[name], "python", one_test, limits=LIMITS, repeats=1)
    seen = report.tests[0].stdout_excerpt + report.tests[0].stderr_excerpt
    assert "do-not-leak-this" not in seen and "SECRET_KEY" not in seen
    assert "DATABASE_URL" not in seen and "True" not in seen and "open" not in seen.split()
    assert sandbox_processes() == []


def test_writing_outside_the_box_fails_and_leaves_the_host_alone(one_test, tmp_path):
    target = tmp_path / "escaped.txt"
    source = (
        "import os\nfor path in ['/usr/escaped.txt', '/etc/escaped.txt', "
        f"{str(target)!r}, '/box/../escaped.txt']:\n"
        "    try:\n        open(path, 'w').write('x')\n        print('wrote', path)\n"
        "    except OSError:\n        print('refused', path)\n"
    )
    report = execute(source, "python", one_test, limits=LIMITS, repeats=1)
    assert "wrote /usr" not in report.tests[0].stdout_excerpt
    assert not target.exists() and not Path("/usr/escaped.txt").exists()
    assert not Path("/etc/escaped.txt").exists()


def test_the_program_runs_as_a_slot_uid_of_the_pool(one_test):
    report = execute(
        "import os\nprint(os.getuid(), os.getgid())\n", "python", one_test, limits=LIMITS, repeats=1
    )
    uid, gid = (int(x) for x in report.tests[0].stdout_excerpt.split())
    assert uid == gid and uid in active_isolation().pool.uids()


def test_threads_that_compile_the_runner_at_once_on_a_fresh_host_all_get_it(tmp_path):
    """The first runs on a fresh host compile the runner; threads of one process (the pack
    test, a worker's pool) do it at the same moment and must not take each other's file."""
    barrier = threading.Barrier(6)

    def compile_it(_):
        barrier.wait()
        return runner_binary(tmp_path)

    with ThreadPoolExecutor(max_workers=6) as pool:
        binaries = set(pool.map(compile_it, range(6)))
    assert len(binaries) == 1
    binary = binaries.pop()
    assert os.access(binary, os.X_OK) and binary.stat().st_mode & 0o777 == 0o755
    assert [p.name for p in binary.parent.iterdir()] == ["runner"]  # no temporary file left
