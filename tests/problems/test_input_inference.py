"""The inferred generator (problems/generators/infer.py): which real packages and sample records
it reads and which it refuses (and why), and that its programs print inputs of the same
layout, within the statement's bounds, that the problems' own solutions accept."""

from __future__ import annotations

import shutil
import subprocess
from fractions import Fraction
from pathlib import Path

import pytest

from problems.generators import Proposal, Refusal
from problems.generators import structure as st
from problems.generators.constraints import read_constraints
from problems.generators.infer import describe, generator_code, infer_layout, propose, violations
from problems.generators.layout import shapes_of
from problems.importers.code_contests import read_records
from problems.importers.kattis import _statement

ROOT = Path(__file__).resolve().parents[2]
REALDATA = ROOT.parent / "shared" / "realdata" / "kattis"
SAMPLE = ROOT / "problems" / "packs" / "code_contests_sample.jsonl"
PYTHON = "/usr/bin/python3" if Path("/usr/bin/python3").exists() else shutil.which("python3")
SAME_ROW_NAME = (
    "the same name ({!r}) appears in two positions ({} and {}): a graph or a list of names "
    "whose relations (which names must match or differ) cannot be read"
)
GRAPH = (
    "rows of two node numbers ({}, {} in 1..{}) look like a graph's edges: its constraints "
    "(simple, connected, ...) cannot be checked"
)
EOF_LINES = (
    "the number of lines varies between tests ({} to {}) and no count in the input announces "
    "it (read to end of file?)"
)

# package: the layout read (describe) and its statement bounds {field: (name, lo, hi)},
# or the refusal's reason
REAL = {
    "karwa2023__allumettes": (
        "[v0:int v1:int]",
        {"v0": ("n", 2, 10**9), "v1": ("k", 1, 10**9 - 1)},
    ),
    "karwa2023__circuitconfort": SAME_ROW_NAME.format("louvainlaneuve", "v2", "v3"),
    "karwa2023__horizoncomplexe": (
        "[v0:int] / v0 x v1:int",
        {"v0": ("n", 1, 10**4), "v1": ("h_i", 0, 100)},
    ),
    "karwa2023__impossible": ("[v0:int]", {"v0": ("a", 0, 123456789)}),
    "karwa2023__koalation": (
        "[v0:int] / v0 x v1:int",
        {"v0": ("n", 1, 10**4), "v1": ("n_i", 2, 10**5)},
    ),
    # its secret tests hold m up to 993171876, past the statement's 10^6: observed ranges
    "karwa2023__navettes": ("[v0:int v1:int]", {"v0": ("", 50, 10**9), "v1": ("", 1, 993171876)}),
    "karwa2023__palindronium": ("[v0:int]", {"v0": ("n", 1, 10**8)}),
    "karwa2023__ravitaillement": SAME_ROW_NAME.format("securail", "v3", "v4"),
    "karwa2023__stockagedifficile": ("[v0:int]", {"v0": ("n", 1, 10**18)}),
    "karwa2023__stockagefacile": ("[v0:int]", {"v0": ("n", 1, 10**6)}),
    "problemtools__different": EOF_LINES.format(3, 40),
}

# record title: the layout read and the bounds it took from the statement, or the refusal
RECORDS = {
    "1001_A. Sum of Two": ("[v0:int v1:int]", {"v0": ("a", -(10**9), 10**9)}),
    "1002_A. Prime Check": ("[v0:int]", {"v0": ("n", 1, 10**12)}),
    "1003_B. Array Sum": ("[v0:int] / v0 x v1:int", {"v0": ("n", 1, 2 * 10**5)}),
    "1004_C. Maximum Subarray": ("[v0:int] / v0 x v1:int", {"v1": ("a_i", -(10**4), 10**4)}),
    "1005_A. Count Distinct": ("[v0:int] / v0 lines of (v1:int)", {"v0": ("n", 1, 10**5)}),
    "1006_B. Best Row": (
        "[v0:int v1:int] / v0 lines of v1 x v2:int",
        {"v0": ("n", 1, 500), "v1": ("m", 1, 500)},
    ),
    "1007_A. Points Above the Diagonal": (
        "[v0:int] / v0 lines of (v1:float v2:float)",
        {"v1": ("x_i", -1000.0, 1000.0)},
    ),
    "1008_B. Maximum of Each Test": (
        "v0 tests of: [v1:int] / v1 x v2:int",
        {"v0": ("t", 1, 10**4), "v1": ("n", 1, 2 * 10**5)},
    ),
    "1009_C. Range Sums in Every Test": (
        "v0 tests of: [v1:int v2:int] / v1 x v3:int / v2 lines of (v4:int v5:int)",
        {"v1": ("n", 1, 10**5), "v5": ("r", 1, 10**5)},
    ),
    "1010_D. Grid Paths": ("[v0:int v1:int] / v0 x v1 grid", {"v0": ("n", 1, 1000)}),
    "1011_E. Maze Escape": ("[v0:int v1:int] / v0 x v1 grid", {"v1": ("m", 2, 300)}),
    "1012_A. Reverse the String": ("[v0:str]", {"v0": ("|s|", 1, 10**5)}),
    "1013_B. Palindrome Test": ("[v0:int] / word v1:str of length v0", {"v0": ("n", 1, 2 * 10**5)}),
    "1014_C. Tree Depth": (
        "[v0:int] / v0-1 lines of (v1:int v2:int) tree",
        {"v0": ("n", 1, 2 * 10**5)},
    ),
    "1015_A. Inverse Permutation": (
        "[v0:int] / v0 x v1:int permutation",
        {"v0": ("n", 1, 2 * 10**5)},
    ),
    "1016_B. Sorted Search": (
        "[v0:int v1:int] / v0 x v2:int increasing / v1 lines of (v3:int)",
        {"v1": ("q", 1, 10**5)},
    ),
    "1017_C. Smallest Missing": ("[v0:int] / v0 x v1:int distinct", {"v1": ("a_i", 1, 100)}),
    "1018_D. Range Sum Queries": (
        "[v0:int v1:int] / v0 x v2:int / v1 lines of (v3:int v4:int)",
        {"v0": ("n", 1, 2 * 10**5), "v3": ("l", 1, 2 * 10**5)},
    ),
    "1019_A. Covered Length": (
        "[v0:int] / v0 lines of (v1:int v2:int)",
        {"v1": ("l_i", 1, 10**9), "v2": ("r_i", 1, 10**9)},
    ),
    "1020_B. Even Values in Lists": (
        "[v0:int] / v0 lines of (count, then that many)",
        {"v1": ("k_i", 0, 100)},
    ),
    "1021_C. Distinct Words": ("[v0:int] / v0 lines of (v1:str)", {"v0": ("n", 1, 10**5)}),
    "1022_A. GCD of Each Pair": ("[v0:int] / v0 lines of (v1:int v2:int)", {"v0": ("t", 1, 10**4)}),
    "1023_B. The Larger Real": ("[v0:float v1:float]", {"v1": ("y", -1000.0, 1000.0)}),
    "1024_C. K-th Smallest": ("[v0:int v1:int] / v0 x v2:int", {"v1": ("k", 1, 10**5)}),
    "1025_D. Ones in a Binary Grid": ("[v0:int v1:int] / v0 x v1 grid", {"v1": ("m", 1, 1000)}),
    "1026_A. Subsequence": ("[v0:str v1:str]", {"v1": ("|t|", 1, 10**5)}),
    "1027_B. Top Scorer": ("[v0:int] / v0 lines of (v1:str v2:int)", {"v2": ("s_i", 0, 10**9)}),
    "1028_C. Connected Components": GRAPH.format("v2", "v3", "v0"),
    "1029_D. Cheapest Route": GRAPH.format("v2", "v3", "v0"),
    "1030_A. Differences until the End": EOF_LINES.format(1, 3),
    "1031_B. Cases until Zero": (
        "trailing data: after 3 parts that read test 2 to its end, test 1 has 2 more line(s) no "
        "count announces"
    ),
    "1032_C. Railway Loop": SAME_ROW_NAME.format("gand", "v1", "v2"),
    "1033_A. Word Count": (
        "the tests disagree from line 1 on (1/2/5 tokens) and no integer read before counts them"
    ),
}


def generate(code: str, tmp_path: Path, seed: int, size: int) -> str:
    program = tmp_path / "gen.py"
    if not program.exists():
        program.write_text(code)
    done = subprocess.run(
        [PYTHON, "-P", str(program), str(seed), str(size)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout


def solve(command: list[str], data: str) -> str:
    done = subprocess.run(command, input=data, capture_output=True, text=True, timeout=20)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip(), "no output"
    return done.stdout


def line_counts(layout, text: str) -> dict[str, int]:
    """The counts printed on the lines of the first block of `text`."""
    lines = st.lines_of(text)
    blocks, _, _ = st.instances(shapes_of(layout), [lines], layout.tests is not None)
    _, occurrences, _ = blocks[0]
    found = {}
    for item, occurrence in zip(layout.items, occurrences, strict=True):
        if item.kind == "line":
            for f, token in zip(item.fields, occurrence, strict=True):
                if f.role == "count":
                    found[f.id] = int(token)
    return found


def assert_expected(layout, expected) -> None:
    if isinstance(expected, str):
        assert isinstance(layout, Refusal), describe(layout)
        assert layout.reason == expected
        return
    assert not isinstance(layout, Refusal), layout.reason
    summary, bounds = expected
    assert describe(layout) == summary
    fields = {f.id: f for item in layout.items for f in item.fields}
    if layout.tests:
        fields[layout.tests.id] = layout.tests
    for fid, (name, lo, hi) in bounds.items():
        assert (fields[fid].name, fields[fid].lo, fields[fid].hi) == (name, lo, hi), fid


# -- the real packages ----------------------------------------------------------------------

needs_realdata = pytest.mark.skipif(
    not REALDATA.exists(), reason="the shared real packages are not beside this checkout"
)


def real_package(name: str):
    root = REALDATA / name
    inputs = [p.read_text() for p in sorted((root / "tests").glob("*.in"))]
    return root, inputs, _statement(root)


@needs_realdata
@pytest.mark.parametrize("name", sorted(REAL))
def test_each_real_package_is_read_or_refused_as_listed(name):
    _, inputs, statement = real_package(name)
    assert_expected(infer_layout(inputs, statement), REAL[name])


@needs_realdata
@pytest.mark.parametrize("name", sorted(n for n, e in REAL.items() if not isinstance(e, str)))
def test_a_real_packages_generator_prints_inputs_its_accepted_solution_reads(name, tmp_path):
    root, inputs, statement = real_package(name)
    layout = infer_layout(inputs, statement)
    code = generator_code(layout)
    runs = [(seed, size) for seed in (1, 2) for size in (1, 10, 100)]
    outputs = {(seed, size): generate(code, tmp_path, seed, size) for seed, size in runs}
    assert generate(code, tmp_path, 1, 10) == outputs[(1, 10)]  # the same for the same seed
    assert outputs[(1, 100)] != outputs[(2, 100)]
    for seed in (1, 2):
        lengths = [len(outputs[(seed, size)]) for size in (1, 10, 100)]
        assert lengths == sorted(lengths) and lengths[0] < lengths[-1]
    for text in outputs.values():
        assert violations(layout, text) == []
    again = infer_layout(list(outputs.values()), statement)
    assert not isinstance(again, Refusal) and describe(again) == describe(layout)
    solution = sorted((root / "solutions" / "accepted").glob("*.py"))[0]
    solve([PYTHON, str(solution)], outputs[(1, 10)])


# -- the code_contests sample ------------------------------------------------------------------


def sample_records() -> dict:
    problems = {}
    for label, problem in read_records(SAMPLE):
        assert not isinstance(problem, Exception), f"{label}: {problem}"
        problems[problem.title] = problem
    return problems


def test_the_sample_holds_the_records_listed_each_with_tests_and_a_correct_solution():
    problems = sample_records()
    assert sorted(problems) == sorted(RECORDS) and len(problems) >= 30
    for problem in problems.values():
        assert 2 <= len(problem.tests) <= 5
        assert any(s["verdict_label"] == "accepted" for s in problem.solutions)


@pytest.mark.parametrize("title", sorted(RECORDS))
def test_each_sample_record_is_read_or_refused_as_listed(title):
    problem = sample_records()[title]
    inputs = [t.input.decode() for t in problem.tests]
    assert_expected(infer_layout(inputs, problem.statement), RECORDS[title])


@pytest.mark.parametrize("title", sorted(t for t, e in RECORDS.items() if not isinstance(e, str)))
def test_a_records_inputs_satisfy_its_solutions_and_its_statement(title, tmp_path):
    problem = sample_records()[title]
    layout = infer_layout([t.input.decode() for t in problem.tests], problem.statement)
    code = generator_code(layout)
    correct = [s["code"] for s in problem.solutions if s["verdict_label"] == "accepted"]
    small = [generate(code, tmp_path, seed, size) for seed, size in ((1, 2), (2, 5))]
    for text in small:
        answers = [solve([PYTHON, "-c", program], text).split() for program in correct]
        assert all(answer == answers[0] for answer in answers)
    largest = generate(code, tmp_path, 3, 100)
    assert violations(layout, largest) == []
    if layout.tests is None:  # SIZE 100 reaches every count's bound (a block's counts share)
        for fid, value in line_counts(layout, largest).items():
            f = next(f for item in layout.items for f in item.fields if f.id == fid)
            assert value == f.hi or f.upper, fid
    again = infer_layout([*small, largest], problem.statement)
    assert not isinstance(again, Refusal) and describe(again) == describe(layout)


# -- the engine on hand-made inputs -------------------------------------------------------------


def test_no_inputs_and_empty_inputs_are_refused():
    assert infer_layout([]).reason == "no test inputs to read a layout from"
    assert infer_layout(["", "\n"]).reason == "every test input is empty"


def test_constraint_lines_are_read_in_their_usual_spellings():
    found = read_constraints(
        "\\newcommand{\\maxq}{3 \\cdot 10^{5}}\n## Input\n"
        "$1 \\le n \\le 2 \\cdot 10^5$, $1 <= m <= 10^{18}$, $0 \\leq a_i < 2^{30}$,\n"
        "1 ≤ k < n, 1 ≤ q ≤ \\maxq, -10^9 ≤ x_1, x_2, …, x_n ≤ 10^9+7, 1 ≤ l ≤ r ≤ n,\n"
        "$1 \\le w \\le n(n-1)/2$. The sum of $n$ over all test cases does not exceed 10^6.\n"
        "## Output\n1 ≤ z ≤ 5\n"
    )
    assert found.upper["n"] == (2 * 10**5, False) and found.upper["m"] == (10**18, False)
    assert found.upper["a_i"] == (2**30, True) and found.lower["a_i"] == (0, False)
    assert found.upper["q"] == (3 * 10**5, False)
    assert found.lower["x_i"] == (-(10**9), False) and found.upper["x_i"] == (10**9 + 7, False)
    assert ("k", "n", True, 0) in found.relations and ("l", "r", False, 0) in found.relations
    assert found.sums == {"n": Fraction(10**6)}
    assert found.unread == {"w"} and "z" not in found.upper  # the output section is not read
    assert found.order[:3] == ["n", "m", "a_i"]


def test_a_sum_bound_over_the_tests_is_shared_between_them(tmp_path):
    statement = (
        "Input\nThe first line contains t (1 ≤ t ≤ 1000). Each test is a line with n "
        "(1 ≤ n ≤ 1000) and a line of n integers a_i (1 ≤ a_i ≤ 9).\n"
        "The sum of n over all test cases does not exceed 3000.\nOutput\n"
    )
    layout = infer_layout(["2\n3\n1 2 3\n1\n5\n", "3\n1\n1\n2\n4 4\n4\n1 2 3 4\n"], statement)
    assert describe(layout) == "v0 tests of: [v1:int] / v1 x v2:int"
    assert layout.items[0].fields[0].budget == 3000
    text = generate(generator_code(layout), tmp_path, 7, 100)
    assert violations(layout, text) == []
    lines = st.lines_of(text)
    assert int(lines[0][0]) == 1000 and sum(len(tokens) for tokens in lines[2::2]) <= 3000


def test_a_count_without_a_stated_bound_grows_to_ten_times_the_largest_seen(tmp_path):
    layout = infer_layout(["3\n1 2 3\n", "5\n5 4 3 2 1\n", "2\n7 7\n"])
    count = layout.items[0].fields[0]
    assert (count.lo, count.hi, count.source) == (2, 50, "observed")
    assert any("no bound read" in note for note in layout.notes)
    text = generate(generator_code(layout), tmp_path, 1, 100)
    assert st.lines_of(text)[0] == ["50"] and violations(layout, text) == []


def test_a_value_that_never_changes_and_may_count_what_follows_keeps_its_value(tmp_path):
    statement = "Input\n1 ≤ n, q ≤ 1000, 1 ≤ a_i ≤ 9, 1 ≤ l ≤ r ≤ n\nOutput\n"
    layout = infer_layout(["3 1\n1 2 3\n1 2\n", "5 1\n1 2 3 4 9\n2 4\n"], statement)
    assert describe(layout) == "[v0:int v1:int] / v0 x v2:int / [v3:int v4:int]"
    q = layout.items[0].fields[1]
    assert (q.name, q.lo, q.hi, q.source) == ("q", 1, 1, "pinned")
    text = generate(generator_code(layout), tmp_path, 1, 100)
    assert st.lines_of(text)[0] == ["1000", "1"] and violations(layout, text) == []


def test_size_max_is_the_size_that_reaches_the_bounds(tmp_path):
    layout = infer_layout(["3\n1 2 3\n", "5\n5 4 3 2 1\n"], "Input\n1 ≤ n ≤ 400\nOutput\n")
    at_ten = generate(generator_code(layout, size_max=10), tmp_path, 1, 10)
    assert st.lines_of(at_ten)[0] == ["400"]
    (tmp_path / "gen.py").unlink()
    at_hundred = generate(generator_code(layout, size_max=10), tmp_path, 1, 100)
    assert at_hundred == at_ten  # past size_max SIZE is clamped


def test_propose_gives_the_program_or_the_refusal_as_plain_data():
    made = propose(["2\n1 2\n", "3\n1 2 3\n"], "Input\n1 ≤ n ≤ 10\nOutput\n", name="inferred-1")
    assert isinstance(made, Proposal) and (made.name, made.source, made.error) == (
        "inferred-1",
        "inferred",
        "",
    )
    assert made.code.startswith('"""The body of every inferred generator')
    assert made.provenance["summary"] == "[v0:int] / v0 x v1:int permutation"
    assert made.provenance["layout"]["items"][0]["fields"][0]["hi"] == 10
    assert made.provenance["constraints"] == ["1 ≤ n ≤ 10"]
    refused = propose(["1 2\n", "1 2 3\n"])
    assert (refused.code, refused.source) == ("", "inferred")
    assert refused.error.startswith("the tests disagree from line 1")
    assert refused.provenance == {"refusal": refused.error}
