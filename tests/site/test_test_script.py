"""`scripts/test.sh DOMAIN` runs that domain's folder first, then every other test once: none
left out, none run twice (checked on pytest's own collection, nothing run)."""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def collected(*args: str) -> tuple[list[str], str]:
    env = {**os.environ, "CODEOPT_TEST_WORKERS": "0"}
    env.pop("CI", None)  # one pass
    done = subprocess.run(
        ["scripts/test.sh", *args, "--collect-only", "-q", "-p", "no:cacheprovider"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    return re.findall(r"^(tests/\S+::\S+)$", done.stdout, re.M), done.stdout


def test_a_domain_runs_first_and_the_rest_after_it_each_test_once():
    whole, _ = collected()
    ordered, out = collected("judges")
    assert out.index("-- tests/judges first") < out.index("-- the rest")
    first = [t for t in ordered if t.startswith("tests/judges/")]
    assert first and ordered[: len(first)] == first  # the domain's tests lead
    assert sorted(ordered) == sorted(whole) and len(set(ordered)) == len(ordered)


def test_every_test_file_sits_in_a_domain_folder():
    loose = sorted(p.name for p in (ROOT / "tests").glob("test_*.py"))
    assert loose == [], f"put these in a domain folder (tests/<domain>/): {loose}"
