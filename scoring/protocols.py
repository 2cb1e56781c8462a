"""Trainers' own reward protocols, translated to and from the gathering service
(scoring/services/gathering.py). Plain Python: a request body in, samples out; scores in, the
trainer's answer out.

OpenRLHF's remote reward (`--reward.remote_url`; openrlhf/utils/agent.py,
SingleTurnAgentExecutor._fetch_rewards_via_http) POSTs {"query": [...], "prompts": [...],
"labels": [...]}: `query` is the prompt and the response decoded together (special tokens
kept), `prompts` the prompt as the model saw it (chat template applied), `labels` the
dataset's label column (here the problem's slug). It expects {"rewards": [...], "scores":
[...], "extra_logs": {name: [...]}}, one value per query, retrying 5 times 1 s apart and giving
up after 180 s. In single-turn mode every request carries one sample.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

from foundation.inputs import InputError, json_object

OPENRLHF_FIELDS = ("query", "prompts", "labels")
OPENRLHF_LOGS = ("correct", "group_mixed", "group_all_negative", "group_all_positive")
"""extra_logs sent back, one 0/1 per sample: OpenRLHF averages each over its step (wandb)."""


@dataclass(frozen=True)
class Sample:
    problem: str  # the label: a built problem's slug
    prompt: str  # the group: samples of one prompt (and problem) are one group
    completion: str  # the response: what follows the prompt in the query

    @property
    def group(self) -> str:
        """The group's name: a digest of the prompt (a prompt is longer than a name)."""
        return hashlib.sha256(self.prompt.encode()).hexdigest()


def openrlhf_samples(body: object) -> list[Sample]:
    """The samples of an OpenRLHF request, each response cut from its query after its
    prompt. A refused field is an InputError naming it (`query[3]`)."""
    json_object(body, OPENRLHF_FIELDS)
    lists = {}
    for name in OPENRLHF_FIELDS:
        value = body.get(name)
        if not isinstance(value, list) or not value:
            raise InputError(name, "must be a non-empty list of texts, one per sample")
        for index, item in enumerate(value):
            if not isinstance(item, str):
                raise InputError(f"{name}[{index}]", f"must be text, not {type(item).__name__}")
        lists[name] = value
    sizes = {name: len(value) for name, value in lists.items()}
    if len(set(sizes.values())) != 1:
        raise InputError("labels", f"query, prompts and labels differ in length: {sizes}")
    samples = []
    for index, (query, prompt, label) in enumerate(
        zip(lists["query"], lists["prompts"], lists["labels"], strict=True)
    ):
        if not query.startswith(prompt):
            why = f"does not begin with prompts[{index}]: the response is what follows it"
            raise InputError(f"query[{index}]", why)
        samples.append(Sample(label, prompt, query[len(prompt) :]))
    return samples


def openrlhf_answer(scored: list[dict]) -> dict:
    """OpenRLHF's answer from each sample's score (gathered_answer, in the request's
    order): `rewards` the rewards, `scores` 1 for a positive reward and 0 otherwise
    (OpenRLHF's dynamic filtering keeps the groups whose mean score is strictly between its
    bounds: the mixed groups), `extra_logs` OPENRLHF_LOGS."""
    rewards = [float(s["reward"]) for s in scored]
    values = {
        "correct": lambda s: bool(s["correct"]),
        **{
            f"group_{kind}": (lambda s, kind=kind: s["group"]["kind"] == kind)
            for kind in ("mixed", "all_negative", "all_positive")
        },
    }
    logs = {f"codeopt/{name}": [float(values[name](s)) for s in scored] for name in OPENRLHF_LOGS}
    return {"rewards": rewards, "scores": [float(r > 0) for r in rewards], "extra_logs": logs}
