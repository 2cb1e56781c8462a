"""Small problems for the construction-pipeline tests (the "Sum" problem with generators)."""

from __future__ import annotations

from pathlib import Path

from execution.checker import CheckerSettings
from execution.samples import FAST, MIDDLE, SLOW, write_sum_package  # noqa: F401
from problems.pipeline import PipelineConfig, SourceProblem, SourceSolution, SourceTest

# SIZE s gives 2,000·s numbers: at SIZE=100 the slow reference needs about 0.3 s of CPU, so
# with a 0.6 s target the size search stops at 100 whatever the load
RANDOM_GEN = (
    "import random, sys\nseed, size = int(sys.argv[1]), int(sys.argv[2])\n"
    "rng = random.Random(seed)\nn = size * 2000\nprint(n)\n"
    "print(' '.join(str(rng.randint(-9, 9)) for _ in range(n)))\n"
)
WORST_GEN = RANDOM_GEN.replace("rng.randint(-9, 9)", "9")
SUM_CPP = (
    '#include <cstdio>\nint main(){long long n,s=0,x;scanf("%lld",&n);'
    'while(scanf("%lld",&x)==1)s+=x;printf("%lld\\n",s);}\n'
)
LOOPING_GEN = "while True:\n    pass\n"
CRASHING_GEN = "raise SystemExit('no input for you')\n"
# correct on every input whose numbers are all non-negative: right on the package's tests
# (all 7s), wrong on most generated inputs
POSITIVE_ONLY = FAST.replace("print(sum(nums))", "print(sum(abs(x) for x in nums))")
# ... and right on every input of at most 30,000 numbers too (RANDOM_GEN's at SIZE 2 and 8,
# where a generator is validated), wrong on most larger ones (SIZE 25 and more)
POSITIVE_WHEN_LARGE = FAST.replace(
    "print(sum(nums))", "print(sum(abs(x) for x in nums) if len(nums) > 30000 else sum(nums))"
)


# the hand-written generators only: tests of the other sources inject their proposers
FAST_CONFIG = PipelineConfig(
    slow_target_s=0.6,
    repeats=2,
    generator_candidates=2,
    infer_generators=False,
    llm_generators=False,
)


def sum_problem(
    root: Path,
    *,
    generators: dict[str, str] | None = None,
    accepted: dict[str, str] | None = None,
    wrong: dict[str, str] | None = None,
    cpp: dict[str, str] | None = None,
    slug: str = "sum",
) -> SourceProblem:
    write_sum_package(root)
    tests = [
        SourceTest(f"secret/{p.stem}", "correctness", p, p.with_suffix(".ans"))
        for p in sorted((root / "data" / "secret").glob("*.in"))
    ]
    accepted = accepted if accepted is not None else {"fast": FAST, "middle": MIDDLE, "slow": SLOW}
    wrong = wrong if wrong is not None else {"off": "print(0)\n"}
    solutions = [SourceSolution(n, "python", c, "accepted") for n, c in accepted.items()]
    solutions += [SourceSolution(n, "python", c, "wrong") for n, c in wrong.items()]
    solutions += [SourceSolution(n, "cpp", c, "accepted") for n, c in (cpp or {}).items()]
    return SourceProblem(
        slug=slug,
        time_limit_s=2.0,
        checker=CheckerSettings(),
        tests=tests,
        solutions=solutions,
        generators=generators if generators is not None else {"random": RANDOM_GEN},
    )
