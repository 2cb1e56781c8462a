"""verl against a codeopt server: a custom reward function and a tracking backend.

verl's reward managers call `compute_score(data_source, solution_str, ground_truth,
extra_info)` once per response (NaiveRewardManager), or a batch of them at once
(BatchRewardManager: lists of each, keyword arguments). Our rewards are relative to a group
(a program is ranked against its group and the references), so scoring one response alone
loses the group: `compute_score_batch` is the form to use; `compute_score` scores a single
response as a group of one. Configure it (verl's `custom_reward_function`):

    custom_reward_function.path=integrations/verl.py
    custom_reward_function.name=compute_score_batch
    reward_model.reward_manager=batch

with CODEOPT_SERVER, CODEOPT_TOKEN and CODEOPT_REWARD_CONFIG (and CODEOPT_RUN) in the
environment. The dataset is GET /api/problems/export/?shape=verl&file_format=parquet:
`reward_model.ground_truth` is the problem's slug.
"""

from __future__ import annotations

import os

from runs.client import MetricsClient
from scoring.client import ScoringClient


def _client() -> tuple[ScoringClient, str]:
    server = os.environ.get("CODEOPT_SERVER", "http://127.0.0.1:8000")
    return ScoringClient(server, os.environ["CODEOPT_TOKEN"]), os.environ.get(
        "CODEOPT_REWARD_CONFIG", "binary-top30"
    )


def compute_score_batch(
    data_sources, solution_strs, ground_truths, extra_infos=None, **kwargs
) -> list[float]:
    """verl's BatchRewardManager form: one reward per response, responses of the same
    problem scored as one group (in the batch's order). `ground_truth` is the problem slug;
    the response is a completion (program, then a closing ``` fence)."""
    client, reward_config = _client()
    groups: dict[str, list[int]] = {}
    for index, slug in enumerate(ground_truths):
        groups.setdefault(slug, []).append(index)
    sent = [
        {"problem": slug, "completions": [solution_strs[i] for i in indexes]}
        for slug, indexes in groups.items()
    ]
    step = kwargs.get("step")
    run = os.environ.get("CODEOPT_RUN")
    fields = {"run": int(run), "step": step} if run and step is not None else {}
    answer = client.score_job(sent, reward_config, **fields)
    rewards = [0.0] * len(solution_strs)
    for indexes, group in zip(groups.values(), answer["groups"], strict=True):
        for index, sample in zip(indexes, group["samples"], strict=True):
            rewards[index] = float(sample["reward"])
    return rewards


def compute_score(data_source, solution_str, ground_truth, extra_info=None, **kwargs) -> float:
    """verl's default (NaiveRewardManager) form: one response, scored as a group of one."""
    return compute_score_batch([data_source], [solution_str], [ground_truth], [extra_info])[0]


class CodeoptTracking:
    """A verl tracking backend (its `Tracking` calls `log(data, step)` on each backend):
    verl's metrics (`actor/pg_loss`, `critic/score/mean`, ...) to a codeopt run under
    `verl/`."""

    def __init__(self, server: str, token: str, run: int, *, prefix: str = "verl/"):
        self.metrics = MetricsClient(server, token, run)
        self.prefix = prefix

    def log(self, data: dict, step: int) -> None:
        self.metrics.log(
            step,
            {
                self.prefix + key: float(value)
                for key, value in data.items()
                if isinstance(value, int | float) and not isinstance(value, bool)
            },
        )

    def finish(self) -> None:
        self.metrics.close()
