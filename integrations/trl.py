"""TRL's GRPOTrainer against a codeopt server: rewards from our sandbox, metrics on a run.

    reward = CodeoptReward(server, token, "binary-top30", run=run_id)
    trainer = GRPOTrainer(model, reward_funcs=[reward], train_dataset=dataset,
                          callbacks=[CodeoptCallback(server, token, run_id)], args=...)

The dataset is GET /api/problems/export/?shape=trl (columns `prompt`, `problem`): TRL passes
every column but the prompt to a reward function as a keyword argument, so each completion
comes back with its problem's slug. Needs `transformers` (for the callback) beside this file.

TRL's reward contract, as far as it reaches here: the verdict, speed percentile and group kind
of each completion go to TRL's completions table (`log_extra`: columns `codeopt_verdict`,
`codeopt_percentile`, `codeopt_group`), the step's group-kind shares to TRL's logged metrics
(`log_metric`: `codeopt/groups_<kind>`, and through CodeoptCallback to the run as
`trl/codeopt/groups_<kind>`), and `AsyncCodeoptReward` is the same reward as an `async`
callable, which TRL runs beside its other async reward functions. A batch the service could
not measure (its job failed in the sandbox after the service's own retries) comes back as
`None` for each completion, which TRL leaves out, never a made-up reward; their count is
logged as `codeopt/unmeasured`.
"""

from __future__ import annotations

import asyncio
import warnings

from transformers import TrainerCallback

from runs.client import MetricsClient
from scoring.client import SandboxFailed, ScoringClient


def _text(completion) -> str:
    """A completion in TRL's standard (text) or conversational (messages) format."""
    if isinstance(completion, list):
        return "".join(message.get("content", "") for message in completion)
    return completion


class CodeoptReward:
    """A TRL reward function (prompts, completions and the dataset's columns as keyword
    arguments; one float per completion), scoring through POST /api/scoring/:

    1. completions are grouped by (problem, prompt), in the order TRL generated them (its
       sampler repeats each prompt num_generations times);
    2. one scoring job for the whole batch, sent as completions (the server extracts the
       program as our trainer does), with `run` and the step TRL will log this update at
       (global_step + 1) when a run is given, so the server writes the step's samples and
       groups/* series to the run at the step of TRL's own loss;
    3. the rewards go back in TRL's order."""

    def __init__(
        self,
        server: str,
        token: str,
        reward_config: str,
        *,
        run: int | None = None,
        problem_column: str = "problem",
        client: ScoringClient | None = None,
    ):
        self.__name__ = "codeopt"  # TRL names the reward's logged series after it
        self.client = client or ScoringClient(server, token)
        self.reward_config = reward_config
        self.run = run
        self.problem_column = problem_column
        self.last_answer: dict | None = None

    def __call__(
        self, prompts, completions, trainer_state=None, log_extra=None, log_metric=None, **columns
    ) -> list[float | None]:
        problems = columns[self.problem_column]
        groups: dict[tuple[str, str], list[int]] = {}
        for index, (problem, prompt) in enumerate(zip(problems, prompts, strict=True)):
            groups.setdefault((problem, str(prompt)), []).append(index)
        sent = [
            {"problem": problem, "completions": [_text(completions[i]) for i in indexes]}
            for (problem, _), indexes in groups.items()
        ]
        # TRL scores a batch before the update it trains and logs that update at
        # global_step + 1: the same step here, so groups/* and trl/* line up on the charts;
        # the policy that generated the batch is the one entering that step (staleness 0).
        step = trainer_state.global_step + 1 if trainer_state is not None else None
        fields = {"run": self.run, "step": step, "policy_version": step} if self.run else {}
        try:
            answer = self.client.score_job(
                sent, self.reward_config, sandbox_failure="raise", **fields
            )
        except SandboxFailed as exc:
            # not the programs' fault: no reward at all (TRL leaves None out), said so
            warnings.warn(f"{exc}: its {len(prompts)} completions get no reward", stacklevel=2)
            self.last_answer = None
            if log_metric is not None:
                log_metric("codeopt/unmeasured", float(len(prompts)))
            return [None] * len(prompts)
        self.last_answer = answer
        if log_metric is not None:
            log_metric("codeopt/unmeasured", 0.0)
        rewards = [0.0] * len(prompts)
        columns = {name: [None] * len(prompts) for name in ("verdict", "percentile", "group")}
        for indexes, group in zip(groups.values(), answer["groups"], strict=True):
            kind = group["kind"]  # the service's, as every trainer's integration reads it
            for index, sample in zip(indexes, group["samples"], strict=True):
                rewards[index] = float(sample["reward"])
                columns["verdict"][index] = sample["verdict"]
                columns["percentile"][index] = sample["speed_percentile"]
                columns["group"][index] = kind
        if log_extra is not None:  # TRL's completions table, a value per completion
            for name, values in columns.items():
                log_extra(f"codeopt_{name}", values)
        if log_metric is not None:  # averaged by TRL over its logging step
            for kind, share in (answer.get("group_kinds") or {}).items():
                log_metric(f"codeopt/groups_{kind}", float(share))
        return rewards


class AsyncCodeoptReward(CodeoptReward):
    """CodeoptReward as an `async` reward function: TRL awaits it on its event loop beside
    its other async reward functions; the scoring request runs in a thread meanwhile."""

    async def __call__(self, prompts, completions, **kwargs) -> list[float | None]:
        score = super().__call__
        return await asyncio.to_thread(score, prompts, completions, **kwargs)


class CodeoptCallback(TrainerCallback):
    """Sends what TRL logs (loss, reward, kl, entropy, ...) to a codeopt run, under `trl/`
    (`trl/loss`), at TRL's global step; closes the client when training ends."""

    def __init__(self, server: str, token: str, run: int, *, prefix: str = "trl/"):
        self.metrics = MetricsClient(server, token, run)
        self.prefix = prefix

    def on_log(self, args, state, control, logs=None, **kwargs):
        numbers = {
            self.prefix + key: float(value)
            for key, value in (logs or {}).items()
            if isinstance(value, int | float) and not isinstance(value, bool)
        }
        if numbers:
            self.metrics.log(state.global_step, numbers)

    def on_train_end(self, args, state, control, **kwargs):
        self.metrics.close()
