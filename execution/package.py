"""Read a problem in the Kattis / ICPC package layout. Plain Python, no Django.

problem.yaml            name, validation (default | custom), validator_flags, limits
.timelimit              seconds (optional; problem.yaml limits.time_limit too)
data/sample/*.in|.ans   tests, or tests/sample_*.in|.ans and tests/secret_*.in|.ans
data/secret/*.in|.ans
submissions/ or solutions/{accepted,time_limit_exceeded,slow_accepted,wrong_answer,...}/
output_validators/<name>/*.cc|*.cpp   a custom checker (validation: custom)
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import yaml

from execution.checker import CheckerSettings, parse_validator_flags
from execution.engine import Case

EXTENSIONS = {".py": "python", ".cc": "cpp", ".cpp": "cpp", ".cxx": "cpp"}
DEFAULT_TIME_LIMIT = 2.0


class PackageError(ValueError):
    """The folder is not a usable problem package; the message names the file at fault."""


@dataclass(frozen=True)
class Solution:
    path: Path
    language: str
    verdict_dir: str  # accepted, time_limit_exceeded, ...

    @property
    def name(self) -> str:
        return f"{self.verdict_dir}/{self.path.name}"


@dataclass
class ProblemPackage:
    root: Path
    name: str
    time_limit_s: float
    tests: list[Case]
    checker: CheckerSettings
    validator_sources: list[Path] = field(default_factory=list)  # custom checker, C++
    validator_flags: list[str] = field(default_factory=list)
    solutions: list[Solution] = field(default_factory=list)
    missing_answers: list[str] = field(default_factory=list)  # tests left out (no .ans)

    def solutions_in(self, verdict_dir: str) -> list[Solution]:
        return [s for s in self.solutions if s.verdict_dir == verdict_dir]

    @property
    def ranked_tests(self) -> list[str]:
        """Tests the speed percentile averages over: optimization tests when marked, else
        every test that is not a sample (samples are tiny: start-up time, not speed)."""
        optimization = [t.name for t in self.tests if t.kind == "optimization"]
        return optimization or [t.name for t in self.tests if t.kind != "sample"]


def _tests(root: Path, skip_missing_answers: bool) -> tuple[list[Case], list[str]]:
    cases = []
    data = root / "data"
    if data.is_dir():
        for group in ("sample", "secret"):
            for path in sorted((data / group).glob("**/*.in")):
                answer = path.with_suffix(".ans")
                name = f"{group}/{path.relative_to(data / group).with_suffix('')}"
                kind = "sample" if group == "sample" else "correctness"
                cases.append(Case(name, path, answer, kind))
    elif (root / "tests").is_dir():
        for path in sorted((root / "tests").glob("*.in")):
            kind = "sample" if path.name.startswith("sample") else "correctness"
            cases.append(Case(path.stem, path, path.with_suffix(".ans"), kind))
    missing = [c.name for c in cases if not c.answer_path.exists()]
    if missing and not skip_missing_answers:
        names = ", ".join(f"{name.rsplit('/', 1)[-1]}.ans" for name in missing[:5])
        raise PackageError(f"{root.name}: no .ans file for {names}")
    cases = [c for c in cases if c.name not in missing]
    if not cases:
        raise PackageError(
            f"{root.name}: no tests with answers in data/sample, data/secret or tests/"
        )
    return cases, missing


def _solutions(root: Path) -> list[Solution]:
    found = []
    for folder in ("submissions", "solutions"):
        base = root / folder
        if not base.is_dir():
            continue
        for verdict_dir in sorted(p for p in base.iterdir() if p.is_dir()):
            for path in sorted(verdict_dir.iterdir()):
                language = EXTENSIONS.get(path.suffix)
                if language:
                    found.append(Solution(path, language, verdict_dir.name))
    return found


def _time_limit(root: Path, meta: dict) -> float:
    dotfile = root / ".timelimit"
    if dotfile.exists():
        try:
            return float(dotfile.read_text().strip())
        except ValueError:
            raise PackageError(f"{root.name}/.timelimit: not a number") from None
    limits = meta.get("limits") or {}
    return float(limits.get("time_limit", DEFAULT_TIME_LIMIT))


def load_package(root: Path, *, skip_missing_answers: bool = False) -> ProblemPackage:
    """The package at `root`; PackageError naming the file at fault. A test without its
    .ans is an error, or with `skip_missing_answers` left out and listed in
    `missing_answers` (the importer reports it against the problem)."""
    root = Path(root)
    yaml_path = root / "problem.yaml"
    if not yaml_path.exists():
        raise PackageError(f"{root}: no problem.yaml")
    try:
        meta = yaml.safe_load(yaml_path.read_text()) or {}
    except yaml.YAMLError as exc:
        raise PackageError(f"{root.name}/problem.yaml: {exc}") from None
    name = meta.get("name", root.name)
    if isinstance(name, dict):  # {en: ..., fr: ...}
        name = name.get("en") or next(iter(name.values()))
    flags = str(meta.get("validator_flags") or "")
    validation = str(meta.get("validation", "default"))
    validator_sources: list[Path] = []
    if validation.startswith("custom"):
        if "interactive" in validation:
            raise PackageError(f"{root.name}: interactive problems are not supported")
        validator_sources = sorted(
            p for p in (root / "output_validators").glob("*/*") if p.suffix in (".cc", ".cpp")
        )
        if not validator_sources:
            raise PackageError(f"{root.name}: validation is custom but no C++ validator found")
        checker = CheckerSettings()
    else:
        try:
            checker = parse_validator_flags(flags)
        except ValueError as exc:
            raise PackageError(f"{root.name}/problem.yaml: {exc}") from None
    tests, missing = _tests(root, skip_missing_answers)
    return ProblemPackage(
        root=root,
        name=str(name),
        time_limit_s=_time_limit(root, meta),
        tests=tests,
        missing_answers=missing,
        checker=checker,
        validator_sources=validator_sources,
        validator_flags=flags.split() if validator_sources else [],
        solutions=_solutions(root),
    )
