"""Problems posed to models as one function (problems/function_task.py, a pack's
`function.yaml`): the task is checked field by field on import, the prompt asks for the
function instead of the statement, and every path that turns a completion into a program
(training and evaluations through rollout.sample_groups, the scoring API's `completions`)
puts the problem's harness after it; a program sent whole is scored as it is."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
import yaml

from execution.engine import Program, measure
from execution.package import PackageError, load_package
from execution.samples import FAST
from execution.sandbox import Limits
from lm.prompts import chat_messages, extract_program, make_prompt
from problems.function_task import FunctionTask

PACK = Path(__file__).resolve().parents[2] / "problems" / "packs" / "core"
POSED = sorted(p.parent.name for p in PACK.glob("*/function.yaml"))
SUM = {
    "name": "total",
    "request": "Write a Python function `total(nums)` that returns the sum of the list `nums`.",
    "harness": "import sys\n\nprint(total(list(map(int, sys.stdin.read().split()))[1:]))\n",
}
# per posed pack problem: a correct function, and a wrong one its tests must catch
FUNCTIONS = {
    "max-number": (
        "def max_number(nums):\n    return max(nums)\n",
        "def max_number(nums):\n    return sorted(nums)[-2] if len(nums) > 1 else nums[0]\n",
    ),
    "even-count": (
        "def count_even(nums):\n    return sum(x % 2 == 0 for x in nums)\n",
        "def count_even(nums):\n    return sum(x % 2 == 1 for x in nums)\n",
    ),
    "count-vowels": (
        "def count_vowels(s):\n    return sum(s.count(v) for v in 'aeiou')\n",
        "def count_vowels(s):\n    return sum(s.count(v) for v in 'aeiouy')\n",
    ),
}


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"name": "2x"}, "function.name"),
        ({"name": "class"}, "function.name"),
        ({"request": "Write a function that sums."}, "function.request"),
        ({"harness": "print(total(1)"}, "function.harness"),
        ({"harness": "print(1)\n"}, "function.harness"),
        ({"harness": ""}, "function.harness"),
        ({"speed": "fast"}, "function"),
    ],
)
def test_a_bad_task_names_its_field(change, field):
    with pytest.raises(ValueError) as raised:
        FunctionTask.from_dict({**SUM, **change})
    assert str(raised.value).startswith(field + ":"), raised.value


def test_the_prompt_asks_for_the_function_and_the_program_is_it_followed_by_the_harness():
    task = FunctionTask.from_dict(SUM)
    statement = "# Sum\n\nYou are given n integers..."
    for style in ("plain", "chatml"):
        prompt = make_prompt(statement, style=style, function=task)
        assert task.request in prompt and "You are given" not in prompt
        assert prompt.endswith("```python\n")
    assert chat_messages(statement, style="chatml", function=task)[-1]["content"] == task.request
    program = extract_program("def total(nums):\n    return sum(nums)\n```\nIt sums.", task.harness)
    assert program.startswith("def total(nums):") and program.endswith(task.harness)
    assert extract_program("def total(nums):", task.harness) is None  # no fence: no program
    assert extract_program("def total(nums):\n```") == "def total(nums):\n"  # no task


@pytest.mark.parametrize("slug", POSED)
def test_a_pack_function_with_its_harness_passes_every_test_and_a_wrong_one_is_caught(slug):
    task = FunctionTask.from_dict(yaml.safe_load((PACK / slug / "function.yaml").read_text()))
    package = load_package(PACK / slug)
    right, wrong = FUNCTIONS[slug]
    programs = [
        Program(name, extract_program(code + "```\n", task.harness), "python")
        for name, code in (("right", right), ("wrong", wrong))
    ]
    limits = Limits(cpu_seconds=4 * package.time_limit_s, wall_seconds=8 * package.time_limit_s)
    reports = measure(programs, package.tests, limits=limits, repeats=1, checker=package.checker)
    assert reports["right"].verdict == "OK", reports["right"].tests
    assert reports["wrong"].verdict == "WRONG_ANSWER"


def test_the_demo_problems_are_posed_as_functions():
    from workers.demo import DEMO_PROBLEMS

    assert set(DEMO_PROBLEMS) <= set(POSED) == set(FUNCTIONS)


@pytest.mark.django_db
def test_an_import_stores_the_task_the_page_shows_it_and_a_bad_one_is_refused(tmp_path, alice):
    from django.test import Client

    from problems.importers.kattis import read_package
    from problems.models import Problem
    from problems.services.imports import do_store_problem

    folder = tmp_path / "even-count"
    shutil.copytree(PACK / "even-count", folder)
    do_store_problem(read_package(folder))
    stored = Problem.objects.get(slug="even-count").function_task
    assert FunctionTask.from_dict(stored).name == "count_even"

    client = Client()
    client.force_login(alice)
    page = client.get("/problems/even-count/").content.decode()
    assert "Posed to models as a function" in page and "`count_even(nums)`" in page
    assert "print(count_even(" in page  # the harness

    (folder / "function.yaml").write_text(yaml.safe_dump({**SUM, "name": "count even"}))
    with pytest.raises(PackageError, match=r"even-count/function.yaml.name: "):
        read_package(folder)


@pytest.mark.django_db
def test_the_scoring_api_puts_the_harness_after_completions_not_after_programs(
    built, alice_api, django_capture_on_commit_callbacks
):
    from problems.models import Problem
    from scoring.coordinator import do_score_rollouts

    Problem.objects.filter(slug="sum").update(function_task=SUM)
    right = "def total(nums):\n    return sum(nums)\n```\n"
    wrong = "def total(nums):\n    return sum(nums) + 1\n```\n"
    groups = [
        {"problem": "sum", "completions": [right, wrong, "def total(nums):"]},
        {"problem": "sum", "programs": [FAST]},  # a whole program: scored as it is
    ]
    with django_capture_on_commit_callbacks(execute=True):
        answer = alice_api.post(
            "/api/scoring/", {"reward_config": "binary-top50", "groups": groups}, format="json"
        )
    assert answer.status_code == 202, answer.content
    job_id = answer.json()["id"]
    assert do_score_rollouts(job_id, "test-worker") == "done"
    done = alice_api.get(f"/api/scoring/{job_id}/").json()
    first, second = done["groups"]
    assert [s["verdict"] for s in first["samples"]] == ["OK", "WRONG_ANSWER", "FORMAT"]
    assert first["samples"][0]["program"].endswith(SUM["harness"])
    assert [s["verdict"] for s in second["samples"]] == ["OK"]
    assert second["samples"][0]["program"] == FAST
