"""The entry point benchmarks/fidelity.py imports: the paper's second diagnostic, the reward
design space ranked at a measured timing noise. Import after Django is set up (it reads the
stored configurations and runtimes and stores the ranking the Rewards page shows)."""

from __future__ import annotations

from rewards.services import do_rank_reward_designs


def rank_reward_designs(
    noise_cv: float,
    problems: list[str] | None = None,
    quick: bool = False,
    store: bool = True,
) -> dict:
    """The stored reward configurations (else the built-in set) ranked at timing noise
    `noise_cv` (a coefficient of variation of CPU time, 0.2 for 20%) on the stored reference
    runtimes of `problems` (slugs; None: every problem with them). `quick`: 3 noise draws on
    at most 100 problems instead of 8 draws on all. JSON-able: `scores` best first (each with
    its `score`, `monotonicity`, `middle_rise`, `gating` and more), `winner`,
    `winner_family`, `why`, `criterion`, `noise_cv`, `problems_used`, `id` of the stored
    RewardRanking (None without `store`). ValueError naming the argument at fault, or when no
    problem has stored runtimes (run a dataset build first)."""
    return do_rank_reward_designs(
        noise_cv, problem_slugs=problems, quick=quick, store=store, started_by="fidelity"
    )
