"""The layering holds: no import cycle among the project's modules (imports inside functions
included: hiding an import in a function does not remove the dependency), and the engines
import without Django, DRF, Celery or Channels."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
NOT_APPS = {"tests", "benchmarks", "scripts", "examples"}
PACKAGES = tuple(
    sorted(
        path.parent.name for path in ROOT.glob("*/__init__.py") if path.parent.name not in NOT_APPS
    )
)
"""The project's packages: every top-level folder that is one (tests and tools left out)."""


def project_modules() -> dict[str, Path]:
    """{dotted name: file} of every project module (migrations and the problem pack's
    programs left out: they are data, not modules anything imports)."""
    found = {}
    for package in PACKAGES:
        for path in (ROOT / package).rglob("*.py"):
            parts = path.relative_to(ROOT).with_suffix("").parts
            if "migrations" in parts or "packs" in parts:
                continue
            if parts[-1] == "__init__":
                parts = parts[:-1]
            found[".".join(parts)] = path
    return found


def imports_of(path: Path, name: str, modules: dict[str, Path]) -> set[str]:
    """Project modules `path` imports, anywhere in the file (TYPE_CHECKING blocks left out:
    they never run)."""
    tree = ast.parse(path.read_text(), str(path))
    skipped: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            skipped.update(id(n) for child in node.body for n in ast.walk(child))
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    targets: set[str] = set()
    for node in ast.walk(tree):
        if id(node) in skipped:
            continue
        if isinstance(node, ast.Import):
            candidates = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*anchor, *([base] if base else [])])
            candidates = [base] + [f"{base}.{alias.name}" for alias in node.names]
        else:
            continue
        for candidate in candidates:
            while candidate and candidate not in modules:  # a name inside a module
                candidate = candidate.rpartition(".")[0]
            if candidate and candidate != name:
                targets.add(candidate)
    return targets


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for target in sorted(graph[node]):
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in on_stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    sys.setrecursionlimit(10_000)
    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def import_graph() -> dict[str, set[str]]:
    modules = project_modules()
    graph = {name: imports_of(path, name, modules) for name, path in modules.items()}
    # a package's __init__ is not an edge to its own submodules' users
    return graph


def test_the_cycle_finder_finds_a_planted_cycle_and_ignores_a_chain():
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert cycles({"a": {"b"}, "b": {"c"}, "c": set()}) == []


def test_function_level_imports_count_as_edges(tmp_path):
    module = tmp_path / "m.py"
    module.write_text("def f():\n    from workers.retry import x\n")
    modules = {"workers.retry": ROOT / "workers/retry.py", "m": module}
    assert imports_of(module, "m", modules) == {"workers.retry"}


def test_no_import_cycle_among_the_projects_modules():
    found = cycles(import_graph())
    assert found == [], "import cycles:\n" + "\n".join(" <-> ".join(c) for c in found)


ENGINES = [
    "execution.engine",
    "execution.sandbox",
    "execution.checker",
    "foundation.ranking",
    "execution.noise",
    "execution.load",
    "training.loop",
    "scoring.scorer",
    "timing.mode_noise",
    "rewards.engine",
    "rewards.simulator",
    "problems.pipeline",
    "problems.generators.llm",
    "evaluations.metrics",
    "evaluations.complexity",
    "judges.analyzer",
    "foundation.llm_endpoint",
    "foundation.progress",
    "lm.prompts",
    "lm.base_models",
    "judges.llm",
]


def test_the_engines_import_without_the_web_and_queue_frameworks():
    """Each engine module in a fresh interpreter where importing django, rest_framework,
    celery or channels raises."""
    blocker = (
        "import sys\n"
        "class Block:\n"
        "    def find_spec(self, name, path=None, target=None):\n"
        "        if name.split('.')[0] in {'django', 'rest_framework', 'celery', 'channels'}:\n"
        "            raise ImportError('blocked: ' + name)\n"
        "sys.meta_path.insert(0, Block())\n"
        "import importlib\n"
        "for name in sys.argv[1:]:\n"
        "    importlib.import_module(name)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", blocker, *ENGINES], cwd=ROOT, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr[-2000:]


# -- the apps' layering ---------------------------------------------------------------------------
# The floors, bottom first (docs/architecture.md draws them). An app imports only apps on lower
# floors, except the pairs below, which import each other and say why.
LAYERS = [
    ["foundation"],  # jobs, sending, liveness, queueing, tenancy, inputs, typed fields, ranking
    ["execution", "lm"],  # the sandbox and measuring engine; base models and prompts
    ["problems"],
    ["rewards"],
    ["runs"],
    ["scoring", "training"],
    ["timing", "evaluations", "integrations"],  # integrations: trainers' code meeting the API
    ["judges"],
    ["workers"],  # the worker processes: heartbeats, health, rescue, retry, the demo
    ["codeopt_site"],  # settings, urls, asgi, the Celery app, pages that span domains
]
PAIRS_BOTH_WAYS = {
    # the scoring service writes an outside trainer's samples into training's tables
    # (TrainingRun, RolloutSample); our trainer scores through the scoring service
    ("scoring", "training"),
}
MOST_PAIRS_BOTH_WAYS = 2  # the limit the layering keeps to (docs/architecture.md)
MOST_IMPORTS_IN_FUNCTIONS = 10  # ... and imports hidden in functions, each saying why


def app_of(module: str) -> str:
    return module.split(".")[0]


def pairs_both_ways(graph: dict[str, set[str]]) -> set[tuple[str, str]]:
    """Pairs of apps each of which imports the other (somewhere, at any level)."""
    edges = {
        (app_of(a), app_of(b)) for a, targets in graph.items() for b in targets
        if app_of(a) != app_of(b)
    }  # fmt: skip
    return {tuple(sorted(edge)) for edge in edges if edge[::-1] in edges}


def imports_in_functions() -> list[str]:
    """`file:line -> module` of every import of another app's module made inside a function."""
    modules = project_modules()
    found = []
    for name, path in modules.items():
        tree = ast.parse(path.read_text(), str(path))
        for function in ast.walk(tree):
            if not isinstance(function, ast.FunctionDef | ast.AsyncFunctionDef):
                continue
            for node in ast.walk(function):
                if not isinstance(node, ast.Import | ast.ImportFrom) or getattr(node, "level", 0):
                    continue
                targets = (
                    [a.name for a in node.names] if isinstance(node, ast.Import) else [node.module]
                )
                for target in targets:
                    if target and app_of(target) in PACKAGES and app_of(target) != app_of(name):
                        found.append(f"{path.relative_to(ROOT)}:{node.lineno} -> {target}")
    return sorted(set(found))


def test_the_pair_finder_finds_a_planted_pair_and_ignores_one_direction():
    graph = {"runs.views": {"workers.tasks"}, "workers.tasks": {"runs.models"}, "judges.x": set()}
    assert pairs_both_ways(graph) == {("runs", "workers")}
    assert pairs_both_ways({"runs.views": {"workers.tasks"}, "workers.tasks": set()}) == set()


def test_every_app_is_on_one_floor_and_the_floors_name_every_package():
    floors = [app for layer in LAYERS for app in layer]
    assert sorted(floors) == sorted(PACKAGES) and len(set(floors)) == len(floors)
    assert len(PAIRS_BOTH_WAYS) <= MOST_PAIRS_BOTH_WAYS


def upward_imports(graph: dict[str, set[str]]) -> list[str]:
    """`module -> module` of every import of an app on a higher floor, or on the same floor,
    other than the pairs allowed to import each other."""
    floor = {app: level for level, layer in enumerate(LAYERS) for app in layer}
    found = []
    for source, targets in graph.items():
        for target in targets:
            a, b = app_of(source), app_of(target)
            if a == b or tuple(sorted((a, b))) in PAIRS_BOTH_WAYS:
                continue
            if floor[b] >= floor[a]:
                found.append(f"{source} -> {target}")
    return sorted(found)


def test_the_upward_finder_finds_a_planted_upward_import_and_lets_a_downward_one_be():
    graph = {"problems.views": {"runs.models"}, "runs.models": {"foundation.jobs"}}
    assert upward_imports(graph) == ["problems.views -> runs.models"]
    assert upward_imports({"scoring.record": {"training.models"}}) == []  # an allowed pair


def test_dependencies_point_down_the_floors():
    found = upward_imports(import_graph())
    assert found == [], "imports up the floors (move the code, or a layer):\n" + "\n".join(found)
    pairs = pairs_both_ways(import_graph())
    assert pairs <= PAIRS_BOTH_WAYS and len(pairs) <= MOST_PAIRS_BOTH_WAYS, sorted(pairs)


PREAMBLE = ("#", "import ", "from ")


def test_each_import_hidden_in_a_function_says_why():
    """At most MOST_IMPORTS_IN_FUNCTIONS cross-app imports inside functions, each with a
    comment (why it cannot be at the top) on its line or above it, in the block of imports
    and blank lines it belongs to."""
    hidden = imports_in_functions()
    assert len(hidden) <= MOST_IMPORTS_IN_FUNCTIONS, "\n".join(hidden)
    unexplained = []
    for entry in hidden:
        path, line = entry.split(" -> ")[0].rsplit(":", 1)
        lines = (ROOT / path).read_text().splitlines()[: int(line)]
        block = [lines.pop()]
        while lines and (not lines[-1].strip() or lines[-1].lstrip().startswith(PREAMBLE)):
            block.append(lines.pop())
        if not any("#" in text for text in block):
            unexplained.append(entry)
    assert unexplained == [], "say why each is not at the top:\n" + "\n".join(unexplained)
