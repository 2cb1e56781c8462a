"""Read Kattis / ICPC problem packages (and the built-in pack, which uses the same layout
plus `generators/`) into plain data. No Django; `problems.services` stores the result."""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass, field
from pathlib import Path

import yaml

from execution.package import PackageError, load_package
from problems.function_task import FunctionTask

MAX_TEST_BYTES = 256 * 1024 * 1024  # a larger input or answer skips the whole problem
VERDICT_LABELS = {
    "accepted": "accepted",
    "slow_accepted": "accepted",
    "time_limit_exceeded": "too_slow",
    "wrong_answer": "wrong",
    "run_time_error": "wrong",
    "runtime_error": "wrong",
}


@dataclass
class ImportedTest:
    name: str
    kind: str
    input: bytes
    answer: bytes


@dataclass
class ImportedProblem:
    slug: str
    title: str
    statement: str
    time_limit_s: float
    source: str
    license: str
    tags: list[str]
    checker: dict
    validator_source: str
    validator_flags: str
    origin: str
    tests: list[ImportedTest] = field(default_factory=list)
    generators: dict[str, str] = field(default_factory=dict)
    solutions: list[dict] = field(default_factory=list)  # name, language, code, verdict_label
    memory_limit_mb: int | None = None  # None: the default
    meta: dict = field(default_factory=dict)  # source-specific facts (difficulty, rating, ...)
    function_task: dict = field(default_factory=dict)  # FunctionTask.as_dict(); {}: none
    warnings: list[str] = field(default_factory=list)  # what was left out, and why


def slug_of(path: Path) -> str:
    return re.sub(r"[^a-z0-9-]+", "-", path.name.lower()).strip("-")[:120]


def _statement(root: Path) -> str:
    folder = root / "problem_statement"
    for name in ("problem.en.md", "problem.md", "problem.en.tex", "problem.fr.tex", "problem.tex"):
        if (folder / name).exists():
            return (folder / name).read_text(errors="replace")
    found = sorted(folder.glob("problem.*")) if folder.is_dir() else []
    return found[0].read_text(errors="replace") if found else ""


def read_package(root: Path) -> ImportedProblem:
    """One package as plain data; PackageError naming the file at fault."""
    root = Path(root)
    package = load_package(root, skip_missing_answers=True)
    meta = yaml.safe_load((root / "problem.yaml").read_text()) or {}
    tests = []
    warnings = [
        f"test {name}: no expected output (.ans); test left out" for name in package.missing_answers
    ]
    for case in package.tests:
        sizes = case.input_path.stat().st_size, case.answer_path.stat().st_size
        if max(sizes) > MAX_TEST_BYTES:
            warnings.append(
                f"test {case.name}: {max(sizes)} bytes; at most {MAX_TEST_BYTES}; test left out"
            )
            continue
        tests.append(
            ImportedTest(
                case.name, case.kind, case.input_path.read_bytes(), case.answer_path.read_bytes()
            )
        )
    tags = meta.get("tags") or meta.get("keywords") or []
    if isinstance(tags, str):
        tags = tags.split()
    if not tests:
        raise PackageError(f"{root.name}: no test left to import")
    return ImportedProblem(
        function_task=_function_task(root),
        slug=slug_of(root),
        title=package.name,
        statement=_statement(root),
        time_limit_s=package.time_limit_s,
        source=str(meta.get("source") or ""),
        license=str(meta.get("license") or ""),
        tags=[str(t) for t in tags],
        checker=asdict(package.checker),
        validator_source="\n".join(p.read_text() for p in package.validator_sources),
        validator_flags=" ".join(package.validator_flags),
        origin=str(root.resolve()),
        tests=tests,
        warnings=warnings,
        generators={p.stem: p.read_text() for p in sorted((root / "generators").glob("*.py"))},
        solutions=[
            {
                "name": s.name,
                "language": s.language,
                "code": s.path.read_text(errors="replace"),
                "verdict_label": VERDICT_LABELS.get(s.verdict_dir, "wrong"),
            }
            for s in package.solutions
        ],
    )


def _function_task(root: Path) -> dict:
    """The package's `function.yaml` (the problem posed as one function), checked; {} when it
    has none."""
    path = root / "function.yaml"
    if not path.exists():
        return {}
    try:
        task = FunctionTask.from_dict(
            yaml.safe_load(path.read_text()), f"{root.name}/function.yaml"
        )
    except (yaml.YAMLError, ValueError) as exc:
        raise PackageError(str(exc)) from None
    return task.as_dict() if task else {}


def find_packages(path: Path) -> list[Path]:
    """`path` itself when it is a package, else every package folder below it."""
    path = Path(path)
    if (path / "problem.yaml").exists():
        return [path]
    return sorted(p.parent for p in path.glob("**/problem.yaml"))
