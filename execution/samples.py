"""A small problem package written on demand: for the demo's timing job and the tests.

"Sum": read n and n integers, print their sum. Two accepted references of very different
speed (a built-in sum, and a loop doing the work twenty times), one wrong answer, and a
candidate (`MEDIUM`) whose speed falls between the two references. The secret tests are
large enough (200,000 and 300,000 numbers) for the programs to differ by more than start-up.
"""

from __future__ import annotations

from pathlib import Path

FAST = "import sys\nnums = list(map(int, sys.stdin.read().split()))[1:]\nprint(sum(nums))\n"
SLOW = (
    "import sys\nnums = list(map(int, sys.stdin.read().split()))[1:]\ntotal = 0\n"
    "for i in range(len(nums)):\n    for _ in range(20):\n        total += nums[i]\n"
    "print(total // 20)\n"
)
# between FAST and SLOW, at least 2x from each (SLOW does the work 20 times, this 5 times), so
# the three keep their order across repeats even on a loaded machine
MIDDLE = SLOW.replace("range(20)", "range(5)").replace("total // 20", "total // 5")
MEDIUM = (
    "import sys\nnums = list(map(int, sys.stdin.read().split()))[1:]\ntotal = 0\n"
    "for x in nums:\n    total += x\nprint(total)\n"
)


def write_sum_package(root: Path) -> Path:
    """Write the package into `root` (created; must not exist) and return it."""
    (root / "data" / "sample").mkdir(parents=True)
    (root / "data" / "secret").mkdir(parents=True)
    (root / "problem.yaml").write_text("name: Sum\nvalidation: default\n")
    (root / ".timelimit").write_text("2\n")
    (root / "data" / "sample" / "1.in").write_text("2\n1 2\n")
    (root / "data" / "sample" / "1.ans").write_text("3\n")
    for i, n in enumerate((200_000, 300_000)):
        (root / "data" / "secret" / f"{i}.in").write_text(f"{n}\n" + " ".join(["7"] * n) + "\n")
        (root / "data" / "secret" / f"{i}.ans").write_text(f"{7 * n}\n")
    accepted = root / "submissions" / "accepted"
    accepted.mkdir(parents=True)
    (accepted / "fast.py").write_text(FAST)
    (accepted / "slow.py").write_text(SLOW)
    (root / "submissions" / "wrong_answer").mkdir()
    (root / "submissions" / "wrong_answer" / "off.py").write_text("print(0)\n")
    return root
