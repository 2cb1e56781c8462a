"""Measured evidence of where a pair's speed comes from: both programs run in the sandbox on
the problem's generated inputs at several sizes, under valgrind's callgrind. Plain Python
over the sandbox (execution): no Django.

What is measured, per program and size (docs/judges.md, "Evidence"):
- **instructions** executed (callgrind's Ir), less the program's own start-up (an empty
  program with the same imports). Instruction counts are bit-identical from run to run
  (fixed environment, argv and PYTHONHASHSEED), so a cost ratio of 1.08 is a real 8%, not a
  timer's mood, and the scaling exponents fit on them carry no timing noise.
- **input/output instructions**: the inclusive cost of the calls that enter CPython's reading,
  parsing and writing functions from anywhere else (`input`, `print`, the `_io` module,
  `int()`/`float()` of text, `str.split`/`strip`, number formatting, `str.join`). This needs an
  interpreter with its symbols: the CPython that runs codeopt (pyenv's, unstripped), not
  Debian's stripped /usr/bin/python3. Without symbols the I/O share is reported as unknown.

From these: each program's scaling exponent (log-log slope of net instructions against the
generator's SIZE), the cost ratio (baseline / optimized) at each size and how it moves from
the smallest size to the largest (constant: the same complexity; growing: a complexity
change), and the share of each program's cost, and of the saving, that is input/output.
"""

from __future__ import annotations

import ast
import math
import os
import re
import shutil
import sys
import tempfile
from dataclasses import asdict, dataclass, field
from functools import cache
from pathlib import Path

from evaluations.metrics import scaling_exponent
from execution.generate import run_generator
from execution.isolation import SandboxError
from execution.retries import run_retried
from execution.sandbox import Limits, prepare_box

METHOD = "callgrind instructions (Ir), inclusive cost of CPython's I/O entry points"
SIZE_LADDER = (1, 2, 4, 8, 16, 32, 64, 100)
"""The generator SIZEs tried, smallest first (the pack's generators take SIZE 1..100)."""
TARGET_NATIVE_S = 0.04
"""The baseline's CPU seconds, start-up excluded, at the largest size measured: about 1.5e8
instructions, a few seconds under callgrind, far above any import's cost."""
POINTS = 3  # sizes measured under callgrind: the chosen size, its half and its quarter
OVERSHOOT_S = 0.5  # a size where the baseline takes longer is too slow to count under callgrind
NATIVE_LIMITS = Limits(cpu_seconds=5, wall_seconds=20, memory_mb=1024)
COUNT_LIMITS = Limits(cpu_seconds=240, wall_seconds=480, memory_mb=4096, output_mb=256)

IO_FUNCTIONS = frozenset(
    {
        "builtin_input",
        "builtin_print",
        # text to numbers
        "PyLong_FromUnicodeObject",
        "_PyLong_FromBytes",
        "PyLong_FromString",
        "PyFloat_FromString",
        # splitting and trimming lines
        "unicode_split",
        "unicode_rsplit",
        "unicode_splitlines",
        "bytes_split",
        "bytes_rsplit",
        "bytes_splitlines",
        "unicode_strip",
        "unicode_rstrip",
        "unicode_lstrip",
        "bytes_strip",
        "bytes_rstrip",
        "bytes_lstrip",
        # numbers to text
        "long_to_decimal_string",
        "long_to_decimal_string_internal",
        "float_repr",
    }
)
"""CPython 3.11's functions (besides all of Modules/_io) whose cost is reading, parsing or
writing. A call into one of them from outside them counts with everything it calls.
`str.join` is not one: a generator joined runs the program's own computation inside it."""
IO_PREFIXES = (
    "_io",
    "textiowrapper",
    "_textiowrapper",
    "buffered",
    "_buffered",
    "fileio",
    "_PyIOBase",
    "iobase",
)
CALLER_DEPTH = 8
"""Callers kept in each I/O function's context (callgrind --separate-callers): an I/O call
made inside another (print's write) is then seen as nested and counted once."""


@dataclass
class Count:
    total: int  # instructions of the whole run
    io: int | None  # of which in I/O entry points (None: the interpreter has no symbols)


@dataclass
class ProgramEvidence:
    net: list[float]  # instructions at each size, start-up excluded
    io: list[float | None]  # of which input/output
    exponent: float | None

    @property
    def io_share(self) -> float | None:
        """The share of the cost at the largest size that is input/output."""
        if not self.net or self.io[-1] is None or self.net[-1] <= 0:
            return None
        return min(1.0, max(0.0, self.io[-1] / self.net[-1]))


@dataclass
class Evidence:
    """What was measured of one pair (as_dict() is stored with it)."""

    method: str = METHOD
    generator: str = ""
    seed: int = 0
    sizes: list[int] = field(default_factory=list)
    baseline: ProgramEvidence | None = None
    optimized: ProgramEvidence | None = None
    outputs_agree: bool | None = None
    note: str = ""  # why something could not be measured

    @property
    def measured(self) -> bool:
        return bool(self.sizes) and self.baseline is not None and self.optimized is not None

    @property
    def ratios(self) -> list[float | None]:
        """Baseline / optimized net instructions at each size."""
        if not self.measured:
            return []
        return [
            b / o if o > 0 and b > 0 else None
            for b, o in zip(self.baseline.net, self.optimized.net, strict=True)
        ]

    @property
    def ratio(self) -> float | None:
        """The cost ratio at the largest size."""
        ratios = self.ratios
        return ratios[-1] if ratios else None

    @property
    def ratio_growth(self) -> float | None:
        """How the ratio moved from the smallest size to the largest (1: constant)."""
        known = [r for r in self.ratios if r is not None]
        if len(known) < 2 or len(self.sizes) < 2:
            return None
        return known[-1] / known[0]

    @property
    def exponent_drop(self) -> float | None:
        if not self.measured:
            return None
        b, o = self.baseline.exponent, self.optimized.exponent
        return b - o if b is not None and o is not None else None

    @property
    def io_saving_share(self) -> float | None:
        """The share of the saving at the largest size that is input/output (can pass 1 when
        the rest grew a little, or be negative when the I/O grew)."""
        if not self.measured or self.baseline.io[-1] is None or self.optimized.io[-1] is None:
            return None
        saving = self.baseline.net[-1] - self.optimized.net[-1]
        if saving <= 0:
            return None
        return (self.baseline.io[-1] - self.optimized.io[-1]) / saving

    @property
    def rest_ratio(self) -> float | None:
        """Baseline / optimized cost outside input/output at the largest size."""
        if not self.measured or self.baseline.io[-1] is None or self.optimized.io[-1] is None:
            return None
        b = self.baseline.net[-1] - self.baseline.io[-1]
        o = self.optimized.net[-1] - self.optimized.io[-1]
        return b / o if b > 0 and o > 0 else None

    def as_dict(self) -> dict:
        out = asdict(self)
        out.update(
            ratios=self.ratios,
            ratio=self.ratio,
            ratio_growth=self.ratio_growth,
            exponent_drop=self.exponent_drop,
            io_saving_share=self.io_saving_share,
            rest_ratio=self.rest_ratio,
            io_share_baseline=self.baseline.io_share if self.baseline else None,
            io_share_optimized=self.optimized.io_share if self.optimized else None,
        )
        return out

    @classmethod
    def from_dict(cls, data: dict | None) -> Evidence | None:
        if not data:
            return None
        sides = {}
        for side in ("baseline", "optimized"):
            got = data.get(side)
            sides[side] = ProgramEvidence(**got) if got else None
        return cls(
            method=data.get("method", METHOD),
            generator=data.get("generator", ""),
            seed=data.get("seed", 0),
            sizes=list(data.get("sizes") or []),
            outputs_agree=data.get("outputs_agree"),
            note=data.get("note", ""),
            **sides,
        )


# ---- the interpreter and its symbols -------------------------------------------------------


def counting_python() -> Path | None:
    """The CPython that callgrind runs programs with: CODEOPT_EVIDENCE_PYTHON, else the real
    file of the interpreter running codeopt when it has its symbols (pyenv's builds do;
    Debian's /usr/bin/python3 is stripped). None when neither has symbols; ValueError naming
    the variable when it names no file."""
    chosen = os.environ.get("CODEOPT_EVIDENCE_PYTHON")
    if chosen and not Path(chosen).is_file():
        raise ValueError(f"CODEOPT_EVIDENCE_PYTHON: no interpreter at {chosen}")
    candidates = [Path(chosen)] if chosen else [Path(os.path.realpath(sys.executable))]
    for path in candidates:
        if path.is_file() and has_symbols(path):
            return path
    return None


@cache
def has_symbols(executable: Path) -> bool:
    """The interpreter (or the libpython beside it) keeps its symbol table: the name of a
    static function, builtin_input, is in it (stripped builds keep only exported names)."""
    files = [executable, *sorted((_prefix(executable) / "lib").glob("libpython3*.so*"))]
    return any(path.is_file() and b"builtin_input\x00" in path.read_bytes() for path in files)


def _prefix(python: Path) -> Path:
    """The installation folder the interpreter needs mounted (bin/.. holds lib/python3.x)."""
    return python.parent.parent if python.parent.name == "bin" else python.parent


# ---- callgrind's output --------------------------------------------------------------------


def _is_io_name(name: str) -> bool:
    return name in IO_FUNCTIONS or name.startswith(IO_PREFIXES)


def is_io_function(file: str, function: str) -> bool:
    name = function.split("'")[0]  # callgrind: name'2 a recursion level, name'caller'... a context
    return "Modules/_io/" in file or _is_io_name(name)


def nested_in_io(function: str) -> bool:
    """The function's context (its callers, callgrind's name'caller1'caller2...) holds an I/O
    function: its cost is already in that one's."""
    return any(_is_io_name(caller) for caller in function.split("'")[1:])


def separate_callers_options() -> list[str]:
    patterns = [f"{prefix}*" for prefix in IO_PREFIXES] + sorted(IO_FUNCTIONS)
    return [f"--separate-callers{CALLER_DEPTH}={pattern}" for pattern in patterns]


_COMPRESSED = re.compile(r"\((\d+)\)(?: (.*))?$")


def parse_callgrind(text: str) -> Count:
    """Total instructions and the inclusive instructions of every call from a non-I/O function
    into an I/O one (callgrind's format: fn= the function whose costs follow, cfn= and calls=
    a call from it, the line after calls= that call's inclusive cost)."""
    tables: dict[str, dict[str, str]] = {"fl": {}, "fn": {}}

    def named(kind: str, rest: str) -> str:
        match = _COMPRESSED.match(rest)
        if match is None:
            return rest
        key, name = match.groups()
        table = tables[kind]
        if name is not None:
            table[key] = name
        return table.get(key, key)

    file = ""
    caller_io = False
    call_file: str | None = None
    callee_io = False
    in_call = False
    total = io = 0
    known_functions = 0
    for line in text.splitlines():
        if not line:
            continue
        head, _, rest = line.partition("=")
        if head == "fl":
            file = named("fl", rest)
        elif head in ("fi", "fe"):
            named("fl", rest)
        elif head == "fn":
            function = named("fn", rest)
            caller_io = is_io_function(file, function)
            known_functions += not function.startswith("0x")
        elif head in ("cfl", "cfi"):
            call_file = named("fl", rest)
        elif head == "cfn":
            callee = named("fn", rest)
            callee_io = is_io_function(call_file or file, callee) and not nested_in_io(callee)
            call_file = None
        elif head == "calls":
            in_call = True
        elif line.startswith(("summary:", "totals:")):
            total = int(line.split()[1])
        elif line[0].isdigit() or line[0] in "+-*":
            if in_call:
                parts = line.split()
                if callee_io and not caller_io and len(parts) > 1:
                    io += int(parts[1])
                in_call = False
    return Count(total, io if known_functions else None)


# ---- running -------------------------------------------------------------------------------


def _box(root: Path, source: str) -> Path:
    if root.exists():
        shutil.rmtree(root)
    root.mkdir(parents=True)
    box = prepare_box(root / "box")
    (box / "main.py").write_text(source)
    return box


def native_cpu(source: str, input_path: Path, work: Path) -> float | None:
    """CPU seconds of one plain run (Debian's python3, as the product's timing runs it); None
    when it failed."""
    box = _box(work, source)
    out = work / "stdout"
    run = run_retried(
        ["/usr/bin/python3", "/box/main.py"],
        box=box,
        limits=NATIVE_LIMITS,
        stdin_path=input_path,
        stdout_path=out,
        stderr_path=work / "stderr",
    )
    if run.exit_code != 0 or run.timed_out_wall or math.isnan(run.cpu_s):
        return None
    return run.cpu_s


def count_instructions(
    source: str, input_path: Path | None, work: Path, python: Path | None
) -> Count | None:
    """Instructions of one run under callgrind (None when the run failed)."""
    box = _box(work, source)
    interpreter = str(python) if python else "/usr/bin/python3"
    argv = [
        "/usr/bin/valgrind",
        "--tool=callgrind",
        "--callgrind-out-file=/box/callgrind.out",
        "--compress-strings=yes",
        *separate_callers_options(),
        "--log-fd=2",
        interpreter,
        "/box/main.py",
    ]
    empty = work / "empty.in"
    if input_path is None:
        empty.write_bytes(b"")
    run = run_retried(
        argv,
        box=box,
        limits=COUNT_LIMITS,
        stdin_path=input_path or empty,
        stdout_path=work / "stdout",
        stderr_path=work / "stderr",
        read_only=(_prefix(python),) if python else (),
        env={"PYTHONHASHSEED": "0"},
        keep_box_writes=True,
    )
    report = box / "callgrind.out"
    if run.exit_code != 0 or not report.exists():
        return None
    count = parse_callgrind(report.read_text(errors="replace"))
    if python is None:
        count.io = None
    return count


def imports_only(source: str) -> str:
    """The program's imports, hoisted, as a program of their own: its start-up cost."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return ""
    lines = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import | ast.ImportFrom) and not getattr(node, "level", 0):
            lines.append(ast.unparse(node))
    return "\n".join(dict.fromkeys(lines)) + "\n"


def pick_sizes(
    baseline: str,
    generator_code: str,
    seed: int,
    root: Path,
    ladder=SIZE_LADDER,
    target_s: float = TARGET_NATIVE_S,
) -> tuple[list[int], dict[int, Path], str]:
    """Grow SIZE along the ladder, running the baseline plainly, until its CPU time less the
    smallest size's reaches `target_s`: (the POINTS sizes to count at, their inputs, a note).
    A size past OVERSHOOT_S (a steep baseline jumps far between two rungs), or where the
    baseline fails, is not counted at: the sizes below it are."""
    inputs: dict[int, Path] = {}
    floor = None
    reached: list[int] = []
    note = ""
    for size in ladder:
        path = root / f"input-{size}.in"
        made = run_generator(generator_code, seed, size, path, workdir=root)
        if not made.ok:
            note = f"generator at SIZE {size}: {made.message}"
            break
        cpu = native_cpu(baseline, path, root / "native")
        if cpu is None:
            note = f"the baseline failed or ran past {NATIVE_LIMITS.cpu_seconds:g} s at SIZE {size}"
            break
        floor = cpu if floor is None else min(floor, cpu)
        if cpu - floor > OVERSHOOT_S and len(reached) >= 2:
            note = f"SIZE {size} took the baseline {cpu:.1f} s: counted below it"
            break
        inputs[size] = path
        reached.append(size)
        if cpu - floor >= target_s:
            break
    chosen = reached[-1:] if reached else []
    if chosen:
        top = chosen[0]
        below = [s for s in reached if s < top]
        for want in (max(1, top // 4), max(1, top // 2)):  # the rungs nearest a quarter, a half
            if below:
                nearest = min(below, key=lambda s: abs(s - want))
                if nearest not in chosen:
                    chosen.append(nearest)
    return sorted(chosen)[-POINTS:], inputs, note


def measure_pair(
    baseline: str,
    optimized: str,
    generator_code: str,
    *,
    generator: str = "",
    seed: int = 1,
    workdir: Path | None = None,
    python: Path | None | bool = True,
) -> Evidence:
    """The evidence of one pair on one generator (python=True: counting_python())."""
    interpreter = counting_python() if python is True else (python or None)
    evidence = Evidence(generator=generator, seed=seed)
    root = Path(tempfile.mkdtemp(prefix="codeopt-evidence-", dir=workdir))
    root.chmod(0o711)
    try:
        sizes, inputs, note = pick_sizes(baseline, generator_code, seed, root)
        if len(sizes) < 2:
            evidence.note = note or "the generator gave fewer than two usable sizes"
            return evidence
        sides: dict[str, ProgramEvidence] = {}
        baseline_printed: dict[int, list[bytes]] = {}
        agree = True
        for name, source in (("baseline", baseline), ("optimized", optimized)):
            startup = count_instructions(imports_only(source), None, root / "count", interpreter)
            if startup is None:
                evidence.note = f"the {name}'s imports failed"
                return evidence
            net, io = [], []
            for size in sizes:
                counted = count_instructions(source, inputs[size], root / "count", interpreter)
                if counted is None:
                    evidence.note = f"the {name} failed at SIZE {size}"
                    return evidence
                net.append(float(max(0, counted.total - startup.total)))
                io.append(
                    float(max(0, counted.io - (startup.io or 0)))
                    if counted.io is not None
                    else None
                )
                printed = (root / "count" / "stdout").read_bytes().split()
                if name == "baseline":
                    baseline_printed[size] = printed
                else:
                    agree = agree and printed == baseline_printed[size]
            sides[name] = ProgramEvidence(net, io, scaling_exponent(sizes, net, 0.0))
        evidence.sizes = sizes
        evidence.baseline, evidence.optimized = sides["baseline"], sides["optimized"]
        evidence.outputs_agree = agree
        notes = [note] if note else []
        if interpreter is None:
            notes.append("I/O share unknown: no CPython with symbols to count with")
        evidence.note = "; ".join(notes)
        return evidence
    except SandboxError as exc:
        evidence.note = f"sandbox failure: {exc}"
        return evidence
    finally:
        shutil.rmtree(root, ignore_errors=True)
