"""OpenRLHF 0.11.2's own single-turn rollout code against codeopt's native remote-reward
endpoint. Run by tests/integrations/test_openrlhf_remote_reward.py in the trainers'
virtualenv (var/trainers), where OpenRLHF is installed without its CUDA-only dependencies.

1. each dataset row becomes a prompt as OpenRLHF's PromptDataset makes it
   (openrlhf.datasets.prompts_dataset.preprocess_data, the chat template applied);
2. OpenRLHF's SingleTurnAgentExecutor.execute runs every sample of every prompt at once, as
   its vLLM engines do in single-turn mode: tokenize, generate, decode prompt and response
   into the query, then POST {query, prompts, labels} for that one sample to
   `--reward.remote_url` (its _fetch_rewards_via_http: aiohttp, 180 s, 5 tries);
3. only vLLM is replaced, at its boundary: `generate` answers the response given for the
   prompt, as token ids of the real tokenizer.

Prints one JSON object: per sample its prompt's number, response and what OpenRLHF kept
(reward, scores, extra_logs).
"""

from __future__ import annotations

import argparse
import asyncio
import json
from collections import defaultdict
from pathlib import Path
from types import SimpleNamespace

from openrlhf.datasets.prompts_dataset import preprocess_data
from openrlhf.utils.agent import SingleTurnAgentExecutor
from transformers import AutoTokenizer


class Engine:
    """vLLM's async engine at its boundary: generate(prompt_token_ids, sampling_params)
    answers the next response waiting for that prompt."""

    def __init__(self, tokenizer, waiting: dict[tuple, list[str]]):
        self.tokenizer = tokenizer
        self.waiting = waiting

    async def generate(self, prompt_token_ids, sampling_params, multi_modal_data=None):
        await asyncio.sleep(0)  # let every sample start before any finishes
        text = self.waiting[tuple(prompt_token_ids)].pop(0)
        ids = self.tokenizer(text, add_special_tokens=False)["input_ids"]
        ids = ids + [self.tokenizer.eos_token_id]
        output = SimpleNamespace(token_ids=ids, finish_reason="stop", logprobs=None)
        return SimpleNamespace(outputs=[output])


async def rollout(args) -> list[dict]:
    tokenizer = AutoTokenizer.from_pretrained(args.tokenizer)
    rows = json.loads(args.rows.read_text())
    executor = SingleTurnAgentExecutor(remote_rm_url=args.url.split(","))
    waiting: dict[tuple, list[str]] = defaultdict(list)
    calls = []
    for number, row in enumerate(rows):
        prompt, label = preprocess_data(
            row,
            input_key="input",
            label_key="label",
            apply_chat_template=tokenizer.apply_chat_template,
        )
        ids = tuple(tokenizer(text=prompt, add_special_tokens=False)["input_ids"])
        waiting[ids].extend(row["responses"])
        for response in row["responses"]:
            calls.append((number, response, prompt, label))
    engine = Engine(tokenizer, waiting)
    params = SimpleNamespace(max_tokens=512, logprobs=None)
    outputs = await asyncio.gather(
        *[
            executor.execute(prompt, label, params, 4096, tokenizer, engine)
            for _, _, prompt, label in calls
        ]
    )

    def response(output) -> str:  # what the engine generated for this sample
        start, end = output["action_ranges"][0]
        return tokenizer.decode(output["observation_tokens"][start:end], skip_special_tokens=True)

    return [
        {
            "prompt": number,
            "response": response(output),
            "reward": output["reward"],
            "scores": output["scores"],
            "extra_logs": output["extra_logs"],
        }
        for (number, _, _, _), output in zip(calls, outputs, strict=True)
    ]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rows", type=Path, required=True, help="JSON [{input, label, responses}]")
    parser.add_argument("--tokenizer", required=True)
    parser.add_argument("--url", required=True, help="OpenRLHF's --reward.remote_url")
    args = parser.parse_args()
    print(json.dumps({"samples": asyncio.run(rollout(args))}))


if __name__ == "__main__":
    main()
