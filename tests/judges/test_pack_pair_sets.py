"""The labelled sets on the built-in pack's problems (judges/labelled.py): the unseen set
(written apart from the syntax rules), the blind and the two sealed sets (written blind). Each is
what it claims: every category has at least 5 pairs over at least 15 problems, and both programs of
every pair give the problem's expected answers on its sample tests and its secret tests under
20 kB (the pack's own checker settings)."""

from __future__ import annotations

import subprocess
from collections import Counter
from pathlib import Path

import pytest
import yaml

from execution.checker import check_output, parse_validator_flags
from judges.categories import CATEGORIES
from judges.labelled import BLIND, SEALED, SEALED2, UNSEEN, load

PACK = Path(__file__).resolve().parents[2] / "problems" / "packs" / "core"
SETS = {
    "unseen": load(UNSEEN),
    "blind": load(BLIND),
    "sealed": load(SEALED),
    "sealed2": load(SEALED2),
}
PAIRS = [(name, pair) for name, pairs in SETS.items() for pair in pairs]
SMALL = 20_000  # bytes of input: the larger secret tests are where a slow baseline times out
SLOW_BASELINE_S = 10  # a secret test a baseline takes longer on (a cubic coin change: 45 s)


@pytest.mark.parametrize("name", SETS)
def test_a_set_covers_every_category_with_5_pairs_or_more(name):
    pairs = SETS[name]
    counts = Counter(p["category"] for p in pairs)
    assert set(counts) == set(CATEGORIES) and min(counts.values()) >= 5, counts
    assert len({p["id"] for p in pairs}) == len(pairs)
    assert len({p["problem"] for p in pairs}) >= 15  # spread over the pack, not one problem
    assert all((PACK / p["problem"]).is_dir() for p in pairs)


def _tests(slug: str) -> list[Path]:
    data = PACK / slug / "data"
    small = [p for p in sorted((data / "secret").glob("*.in")) if p.stat().st_size < SMALL]
    return sorted((data / "sample").glob("*.in")) + small


@pytest.mark.parametrize(("name", "pair"), PAIRS, ids=[p["id"] for _, p in PAIRS])
def test_both_programs_of_a_pair_give_the_expected_answers(name, pair):
    meta = yaml.safe_load((PACK / pair["problem"] / "problem.yaml").read_text()) or {}
    settings = parse_validator_flags(meta.get("validator_flags", ""))
    tests = _tests(pair["problem"])
    checked = {"baseline": 0, "optimized": 0}
    for test in tests:
        answer = test.with_suffix(".ans").read_bytes()
        sample = test.parent.name == "sample"
        for side in ("baseline", "optimized"):
            try:
                done = subprocess.run(
                    ["/usr/bin/python3", "-c", pair[side]],
                    stdin=test.open("rb"),
                    capture_output=True,
                    timeout=60 if sample or side == "optimized" else SLOW_BASELINE_S,
                )
            except subprocess.TimeoutExpired:
                continue  # a slow baseline on a large secret test: checked by its writer
            assert done.returncode == 0, (side, test.name, done.stderr[-500:])
            verdict = check_output(answer, done.stdout, settings)
            assert verdict.ok, (side, test.name, verdict)
            checked[side] += 1
    # every sample, and every small secret test for the optimized program
    samples = sum(1 for t in tests if t.parent.name == "sample")
    assert checked["optimized"] == len(tests) and checked["baseline"] >= samples > 0
