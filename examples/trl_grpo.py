"""TRL's GRPOTrainer trains a causal LM with rewards from a codeopt server, and streams TRL's
metrics and the service's groups/* to a run.

    python examples/trl_grpo.py --server http://127.0.0.1:8000 --token TOKEN --steps 5 \
        [--model smollm2-135m-instruct]

`--model tiny` (the default: a 1-layer GPT-2 made from a config, seconds a step, writes no
program) or `smollm2-135m-instruct` (the pretrained instruct model `make install` converts
into var/models: prompted through its chat format, it writes real programs; minutes a step
on 2 CPU cores).

1. the split's prompts, written for the model: GET /api/problems/export/?split=...&model=...
   (shape trl: prompt, problem);
2. a run: POST /api/runs/ (its reward configuration named);
3. GRPOTrainer(reward_funcs=[CodeoptReward], callbacks=[CodeoptCallback]) for --steps;
4. prints the run's URL.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import urllib.request
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # run from a checkout

from integrations.trl import AsyncCodeoptReward, CodeoptCallback, CodeoptReward  # noqa: E402
from runs.client import create_run, set_status  # noqa: E402


def prompt_dataset(server: str, token: str, split: str, model: str = "tiny") -> list[dict]:
    url = f"{server.rstrip('/')}/api/problems/export/?split={split}&shape=trl&model={model}"
    request = urllib.request.Request(url, headers={"Authorization": f"Token {token}"})
    with urllib.request.urlopen(request, timeout=60) as answer:
        rows = [json.loads(line) for line in answer.read().decode().splitlines() if line]
    if not rows:
        raise SystemExit(f"no built problems in split {split!r} on {server}")
    return rows


def tiny_policy(corpus: list[str]):
    """A 1-layer GPT-2 and a byte-level BPE tokenizer trained on the prompts (codeopt's own
    tiny-model recipe, training/policy.py, made smaller)."""
    from training.policy import TinyModelConfig, tiny_model, train_tokenizer

    tokenizer = train_tokenizer(corpus, vocab_size=512)
    return tiny_model(tokenizer, TinyModelConfig(n_layer=1, n_head=2, n_embd=32)), tokenizer


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--server", required=True)
    parser.add_argument("--token", required=True)
    parser.add_argument("--steps", type=int, default=5)
    parser.add_argument("--split", default="train", choices=["train", "test", ""])
    parser.add_argument("--reward-config", default="binary-top30")
    parser.add_argument("--team", default=None)
    parser.add_argument("--generations", type=int, default=4, help="Completions per prompt.")
    parser.add_argument(
        "--max-completion-length",
        type=int,
        default=None,
        help="Tokens (default: 24 for tiny, 192 for a named model).",
    )
    parser.add_argument("--model", default="tiny", help="tiny or smollm2-135m-instruct")
    parser.add_argument(
        "--async-reward", action="store_true", help="The reward as an async function."
    )
    parser.add_argument(
        "--model-cache",
        default=str(Path(__file__).parents[1] / "var/models"),
        help="Where the named model was converted (make install: var/models).",
    )
    args = parser.parse_args(argv)
    real = args.model != "tiny"
    completion_length = args.max_completion_length or (192 if real else 24)

    from datasets import Dataset
    from trl import GRPOConfig, GRPOTrainer

    rows = prompt_dataset(args.server, args.token, args.split, args.model)
    fields = {"team": args.team} if args.team else {}
    run_id = create_run(
        args.server,
        args.token,
        f"trl-grpo-{args.model}",
        reward_config=args.reward_config,
        tags=["trl", "external"],
        config={"trainer": "trl.GRPOTrainer", "steps": args.steps, "model": args.model},
        model_name=args.model,
        status="running",
        **fields,
    )
    if real:
        from training.policy import load_policy

        model, tokenizer = load_policy(args.model, cache_root=Path(args.model_cache))
    else:
        model, tokenizer = tiny_policy([row["prompt"] for row in rows])
    with tempfile.TemporaryDirectory() as output:
        config = GRPOConfig(
            output_dir=output,
            max_steps=args.steps,
            per_device_train_batch_size=args.generations,
            num_generations=args.generations,
            max_completion_length=completion_length,
            logging_steps=1,
            report_to=[],
            use_cpu=True,
            save_strategy="no",
            learning_rate=2e-6 if real else 1e-4,  # a pretrained model: small steps
            disable_tqdm=True,
        )
        reward_class = AsyncCodeoptReward if args.async_reward else CodeoptReward
        trainer = GRPOTrainer(
            model=model,
            processing_class=tokenizer,
            reward_funcs=[reward_class(args.server, args.token, args.reward_config, run=run_id)],
            train_dataset=Dataset.from_list(rows),
            args=config,
            callbacks=[CodeoptCallback(args.server, args.token, run_id)],
        )
        trainer.train()
    set_status(args.server, args.token, run_id, "finished")
    print(f"{args.server.rstrip('/')}/runs/{run_id}/")
    return run_id


if __name__ == "__main__":
    main()
