"""verl 0.9.1's own reward loop scoring a batch through a codeopt server. Run by
tests/integrations/test_verl_reward_loop.py in the trainers' virtualenv (var/trainers: verl
and its ray, tensordict and transformers<5.11), not in the project's.

1. verl's trainer config (its Hydra `ppo_trainer`, composed as verl's main does) with our
   reward function as `reward.custom_reward_function`, loaded the way verl loads it;
2. verl's RewardLoopManager: `reward.num_workers` Ray actors (RewardLoopWorker), each running
   verl's `naive` reward manager, which awaits our compute_score once per sample;
3. a real DataProto: the responses tokenized with the model's tokenizer, `uid` and the
   dataset columns as verl's rollout leaves them, in a shuffled order (verl's balancing
   reorders samples), so that the samples of one prompt reach both workers;
4. verl's own file tracking backend, loaded by name, writing the step's metrics.

Prints one JSON object: per sample its uid, score and reward extras, and the metrics file.
"""

from __future__ import annotations

import argparse
import json
import random
from pathlib import Path

import ray
import torch
import verl
from hydra import compose, initialize_config_dir
from transformers import AutoTokenizer
from verl import DataProto
from verl.experimental.reward_loop import RewardLoopManager
from verl.utils.tracking import Tracking

ROOT = Path(__file__).resolve().parents[2]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rollouts", type=Path, required=True, help="JSON [{uid, ...}]")
    parser.add_argument("--tokenizer", required=True)
    parser.add_argument("--server", required=True)
    parser.add_argument("--token", required=True)
    parser.add_argument("--reward-config", required=True)
    parser.add_argument("--group-size", type=int, required=True)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--metrics-file", type=Path, required=True)
    args = parser.parse_args()
    rollouts = json.loads(args.rollouts.read_text())
    random.Random(7).shuffle(rollouts)

    kwargs = "+reward.custom_reward_function.reward_kwargs"
    overrides = [
        f"actor_rollout_ref.model.path={args.tokenizer}",
        f"actor_rollout_ref.rollout.n={args.group_size}",
        f"reward.num_workers={args.workers}",
        f"reward.custom_reward_function.path={ROOT / 'integrations' / 'verl.py'}",
        "reward.custom_reward_function.name=compute_score",
        f"{kwargs}.group_size={args.group_size}",
        f"{kwargs}.server={args.server}",
        f"{kwargs}.token={args.token}",
        f"{kwargs}.reward_config={args.reward_config}",
        f"{kwargs}.window_s=60",
    ]
    config_dir = Path(verl.__file__).parent / "trainer" / "config"
    with initialize_config_dir(config_dir=str(config_dir), version_base=None):
        config = compose(config_name="ppo_trainer", overrides=overrides)

    tokenizer = AutoTokenizer.from_pretrained(args.tokenizer)
    prompt = tokenizer("Write the program.", return_tensors="pt")["input_ids"][0]
    encoded = [tokenizer(r["response"], add_special_tokens=False)["input_ids"] for r in rollouts]
    width = max(len(ids) for ids in encoded)
    pad = tokenizer.pad_token_id if tokenizer.pad_token_id is not None else 0
    responses = torch.full((len(rollouts), width), pad, dtype=torch.long)
    response_mask = torch.zeros((len(rollouts), width), dtype=torch.long)
    for row, ids in enumerate(encoded):  # right-padded, as verl's rollout leaves them
        responses[row, : len(ids)] = torch.tensor(ids)
        response_mask[row, : len(ids)] = 1
    prompts = prompt.repeat(len(rollouts), 1)
    data = DataProto.from_dict(
        tensors={
            "prompts": prompts,
            "responses": responses,
            "input_ids": torch.cat([prompts, responses], dim=1),
            "attention_mask": torch.cat([torch.ones_like(prompts), response_mask], dim=1),
        },
        non_tensors={
            "data_source": ["codeopt"] * len(rollouts),
            "reward_model": [{"style": "rule", "ground_truth": r["problem"]} for r in rollouts],
            "extra_info": [{"problem": r["problem"], "index": r["index"]} for r in rollouts],
            "uid": [r["uid"] for r in rollouts],
        },
    )

    ray.init(num_cpus=max(args.workers, 2), include_dashboard=False, log_to_driver=False)
    try:
        manager = RewardLoopManager(config)
        scored = manager.compute_rm_score(data)
    finally:
        ray.shutdown()
    scores = scored.batch["rm_scores"].sum(dim=-1).tolist()
    extras = {
        key: scored.non_tensor_batch[key].tolist() for key in scored.meta_info["reward_extra_keys"]
    }

    tracking = Tracking("codeopt", "reward-loop", default_backend=["file"])
    tracking.log(
        {"critic/score/mean": sum(scores) / len(scores), "verl/samples": len(scores)}, step=1
    )
    tracking.finish()
    samples = [
        {
            "uid": r["uid"],
            "response": r["response"],
            "score": score,
            **{k: v[i] for k, v in extras.items()},
        }
        for i, (r, score) in enumerate(zip(rollouts, scores, strict=True))
    ]
    print(json.dumps({"samples": samples, "metrics_file": str(args.metrics_file)}))


if __name__ == "__main__":
    main()
