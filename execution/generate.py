"""Run an input generator in the sandbox: `python3 -P gen.py SEED SIZE` prints one input.

Generators are code like any other (imported with a problem): they run as the sandbox user
with limits, so one that loops, crashes or floods its output is reported, not obeyed.
`-P` keeps a generator named `random.py` from shadowing the standard library's `random`.
"""

from __future__ import annotations

import hashlib
import shutil
import signal
import tempfile
from dataclasses import dataclass
from pathlib import Path

from execution.retries import run_retried
from execution.sandbox import Limits, prepare_box

GENERATOR_LIMITS = Limits(cpu_seconds=20, wall_seconds=40, memory_mb=2048, output_mb=256)


@dataclass
class GeneratedInput:
    ok: bool
    message: str  # why it failed; empty when ok
    path: Path | None  # the input, when ok
    size_bytes: int
    sha256: str
    cpu_s: float


def run_generator(
    code: str,
    seed: int,
    size: int,
    output_path: Path,
    *,
    limits: Limits = GENERATOR_LIMITS,
    workdir: Path | None = None,
) -> GeneratedInput:
    """Write the generator's output for (seed, size) to `output_path`."""
    root = Path(tempfile.mkdtemp(prefix="codeopt-gen-", dir=workdir))
    root.chmod(0o711)
    try:
        box = prepare_box(root / "work")
        (box / "gen.py").write_text(code)
        run = run_retried(  # SandboxError after the retries: the caller's job fails, retryable
            ["/usr/bin/python3", "-P", "/box/gen.py", str(seed), str(size)],
            box=box,
            limits=limits,
            stdin_path=None,
            stdout_path=output_path,
            stderr_path=root / "stderr",
        )
        written = output_path.stat().st_size
        over_cpu = run.signal == signal.SIGXCPU or (
            run.cpu_s == run.cpu_s and run.cpu_s > limits.cpu_seconds  # (NaN when killed)
        )
        if run.timed_out_wall or over_cpu:
            message = f"generator ran past its {limits.cpu_seconds:g} s limit"
        elif written >= limits.output_mb * 1024 * 1024:
            message = f"generator output over {limits.output_mb} MB"
        elif run.exit_code != 0 or run.signal is not None:
            how = f"signal {run.signal}" if run.signal is not None else f"exit {run.exit_code}"
            message = f"generator failed ({how}): {run.stderr_tail[-300:].strip()}"
        elif written == 0:
            message = "generator printed nothing"
        else:
            digest = hashlib.sha256()
            with open(output_path, "rb") as handle:
                for block in iter(lambda: handle.read(1 << 20), b""):
                    digest.update(block)
            return GeneratedInput(True, "", output_path, written, digest.hexdigest(), run.cpu_s)
        output_path.unlink(missing_ok=True)
        return GeneratedInput(False, message, None, 0, "", run.cpu_s)
    finally:
        shutil.rmtree(root, ignore_errors=True)
