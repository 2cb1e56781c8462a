"""Isolation overhead per execution against a bare subprocess.run of the same program
(target: at most 15 ms or 1.3x, whichever is larger), and executions per second per core.

Both sides run the same compiled C++ program and the same Python script on the same input,
interleaved (bare, sandboxed, bare, ...) so both see the same machine state.

`--caller-mb N` first fills N MB of this process's memory, as a Celery worker (torch loaded)
or a test session holds: a start that forks the caller pays for copying its page tables on
every run. `bare_preexec` is the bare run again with a no-op preexec_fn, which makes
subprocess fork instead of vfork: what the sandbox's start cost before launcher.c.

    .venv/bin/python benchmarks/sandbox_overhead.py [--runs 60] [--caller-mb 1000]
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from _harness import report  # noqa: E402

from execution.checker import CheckerSettings  # noqa: E402
from execution.engine import Case, compile_program, run_once  # noqa: E402
from execution.sandbox import Limits  # noqa: E402

PROGRAMS = {
    "cpp": '#include <cstdio>\nint main(){long long s=0,x; while(scanf("%lld",&x)==1) s+=x;'
    ' printf("%lld\\n", s);}\n',
    "python": "import sys\nprint(sum(map(int, sys.stdin.read().split())))\n",
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=60)
    parser.add_argument("--caller-mb", type=int, default=0)
    args = parser.parse_args()
    ballast = bytearray(args.caller_mb * 1024 * 1024)
    for i in range(0, len(ballast), 4096):  # touched: resident, not just reserved
        ballast[i] = 1
    work = Path(tempfile.mkdtemp(prefix="codeopt-overhead-"))
    work.chmod(0o711)
    test_in, test_ans = work / "t.in", work / "t.ans"
    test_in.write_text(" ".join(["3"] * 1000) + "\n")
    test_ans.write_text("3000\n")
    case = Case("t", test_in, test_ans)
    figures = {}
    for language, source in PROGRAMS.items():
        artifact, message = compile_program(source, language, work / f"build-{language}")
        assert artifact is not None, message
        bare_argv = [str(artifact)] if language == "cpp" else ["/usr/bin/python3", str(artifact)]
        bare, forked, boxed = [], [], []
        for _ in range(args.runs):
            for times, preexec in ((bare, None), (forked, _no_op)):
                started = time.perf_counter()
                with open(test_in, "rb") as stdin:
                    subprocess.run(
                        bare_argv,
                        stdin=stdin,
                        stdout=subprocess.DEVNULL,
                        check=True,
                        preexec_fn=preexec,
                    )
                times.append(time.perf_counter() - started)
            started = time.perf_counter()
            result = run_once(
                artifact,
                language,
                case,
                Limits(),
                work / "run",
                mode="cpu",
                checker=CheckerSettings(),
            )
            boxed.append(time.perf_counter() - started)
            assert result.verdict == "OK", result.message
        bare_ms, boxed_ms = 1000 * statistics.median(bare), 1000 * statistics.median(boxed)
        figures[language] = {
            "bare_median_ms": round(bare_ms, 1),
            "bare_preexec_median_ms": round(1000 * statistics.median(forked), 1),
            "sandboxed_median_ms": round(boxed_ms, 1),
            "overhead_ms": round(boxed_ms - bare_ms, 1),
            "ratio": round(boxed_ms / bare_ms, 2),
            "within_target": boxed_ms - bare_ms <= max(15.0, 0.3 * bare_ms),
            "sandboxed_executions_per_s_per_core": round(1000 / boxed_ms, 1),
        }
    report("sandbox_overhead", {"runs": args.runs, "caller_mb": args.caller_mb, **figures})


def _no_op() -> None:
    pass


if __name__ == "__main__":
    main()
