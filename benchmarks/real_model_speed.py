"""How fast the named base model trains with GRPO on this machine, per choice: what is trained
(every layer, the last N blocks, LoRA adapters), how log-probabilities are computed (the
group's prompt once, or a full forward per sample), torch threads, and dtype.

For each variant, in a process of its own (so its peak memory is its own):
1. sampling: G completions of each of P pack prompts through the chat format, KV-cached
   (transformers' generate), `--max-new-tokens` at most: tokens sampled per second;
2. one GRPO step on those same samples (the samples are made once and reused, so every
   variant does the same work): π_old log-probabilities, then the update (forward,
   backward, AdamW): seconds;
3. peak resident memory (ru_maxrss) of the process.
Wall seconds and CPU seconds (process time) are both printed: on a shared 2-core host the
wall time of the same work moved 2-4x with the neighbours' load, its CPU time far less.

    .venv/bin/python benchmarks/real_model_speed.py [--group-size 8 --prompts 2]
        [--variants full last4 last2 lora16 last4-fullforward last4-threads2 last4-bf16]
        [--threads 1]   (torch threads while sampling)
        [--json out.json]

Prints a table and one JSON object. LoRA comes from peft (installed by this script's caller:
`pip install peft`), used here only to measure it against the alternatives.
"""

from __future__ import annotations

import argparse
import json
import os
import pickle
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

MODEL = "smollm2-135m-instruct"
PROBLEMS = ["sort-numbers", "big-sum", "fib-mod", "distinct-values"]
VARIANTS = {
    # name: (what is trained, log-probabilities, torch threads, dtype)
    "full": ("all", "shared", 1, "float32"),
    "last4": ("last:4", "shared", 1, "float32"),
    "last2": ("last:2", "shared", 1, "float32"),
    "lora16": ("lora:16", "shared", 1, "float32"),
    "last4-fullforward": ("last:4", "full", 1, "float32"),
    "last4-threads2": ("last:4", "shared", 2, "float32"),
    "last4-bf16": ("last:4", "shared", 1, "bfloat16"),
}


def prompts(count: int) -> list[str]:
    from lm.prompts import make_prompt

    pack = ROOT / "problems" / "packs" / "core"
    statements = [(pack / s / "problem_statement" / "problem.en.md") for s in PROBLEMS[:count]]
    return [make_prompt(path.read_text(), style="chatml") for path in statements]


def load(cache: Path, dtype: str):
    import torch

    from training.policy import load_policy

    model, tokenizer = load_policy(MODEL, cache_root=cache)
    return model.to(getattr(torch, dtype)), tokenizer


def make_samples(args) -> Path:
    """Sample once (the sampling figure of the default variant) and keep the samples."""
    import torch

    from training.rollout import sample_groups

    torch.set_num_threads(args.threads)
    model, tokenizer = load(args.cache, "float32")
    torch.manual_seed(0)
    started, cpu_started = time.monotonic(), time.process_time()
    samples = sample_groups(
        model,
        tokenizer,
        prompts(args.prompts),
        args.group_size,
        max_new_tokens=args.max_new_tokens,
        temperature=0.8,
    )
    seconds, cpu_seconds = time.monotonic() - started, time.process_time() - cpu_started
    tokens = sum(len(s.completion_ids) for s in samples)
    path = Path(tempfile.mkdtemp(prefix="codeopt-speed-")) / "samples.pkl"
    path.write_bytes(pickle.dumps(samples))
    return path, {
        "sampled_tokens": tokens,
        "sampling_s": seconds,
        "sampling_cpu_s": cpu_seconds,
        "tokens_per_s": tokens / seconds,
        "tokens_per_cpu_s": tokens / cpu_seconds,
    }


def one_variant(name: str, samples_path: Path, cache: Path, group_size: int) -> dict:
    """The variant's figures (runs in its own process: `--variant NAME`)."""
    import torch

    from training.config import TrainConfig
    from training.policy import limit_trainable
    from training.rollout import completion_logprobs, encode_batch, token_logprobs
    from training.update import grpo_update

    trained, logprob_mode, threads, dtype = VARIANTS[name]
    torch.set_num_threads(threads)
    model, tokenizer = load(cache, dtype)
    samples = pickle.loads(samples_path.read_bytes())
    if trained.startswith("last:"):
        trainable = limit_trainable(model, int(trained.split(":")[1]))
    elif trained.startswith("lora:"):
        from peft import LoraConfig, get_peft_model

        rank = int(trained.split(":")[1])
        model = get_peft_model(
            model,
            LoraConfig(r=rank, lora_alpha=2 * rank, target_modules=["q_proj", "v_proj"]),
        )
        trainable = sum(p.numel() for p in model.parameters() if p.requires_grad)
    else:
        trainable = limit_trainable(model, 0)
    started, cpu_started = time.monotonic(), time.process_time()
    with torch.no_grad():
        if logprob_mode == "shared":
            old, mask = completion_logprobs(model, samples, 0.8)
        else:
            ids, attention, mask = encode_batch(
                tokenizer, [s.prompt_ids for s in samples], [s.completion_ids for s in samples]
            )
            old, _ = token_logprobs(model, ids, attention, 0.8)
    logprob_s, logprob_cpu_s = time.monotonic() - started, time.process_time() - cpu_started
    for row, sample in enumerate(samples):
        if logprob_mode == "shared":
            sample.logprobs = old[row][mask[row].bool()].float().tolist()
        else:
            sample.logprobs = old[row][mask[row].bool()].float().tolist()
    groups = len(samples) // group_size
    # rewards with a spread in every group, so no group is skipped
    rewards = torch.tensor([[1.0 if i % 2 else -1.0 for i in range(group_size)]] * groups)
    config = TrainConfig(learning_rate=2e-6, temperature=0.8)
    optimizer = torch.optim.AdamW([p for p in model.parameters() if p.requires_grad], lr=2e-6)
    started, cpu_started = time.monotonic(), time.process_time()
    grpo_update(model, optimizer, tokenizer, samples, rewards, config)
    update_s, update_cpu_s = time.monotonic() - started, time.process_time() - cpu_started
    return {
        "variant": name,
        "trained": trained,
        "logprobs": logprob_mode,
        "threads": threads,
        "dtype": dtype,
        "trainable_parameters": trainable,
        "old_logprobs_s": round(logprob_s, 2),
        "old_logprobs_cpu_s": round(logprob_cpu_s, 2),
        "update_s": round(update_s, 2),
        "update_cpu_s": round(update_cpu_s, 2),
        "peak_rss_gb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20, 2),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--group-size", type=int, default=8)
    parser.add_argument("--prompts", type=int, default=2)
    parser.add_argument("--max-new-tokens", type=int, default=160)
    parser.add_argument("--threads", type=int, default=1, help="torch threads for sampling")
    parser.add_argument("--variants", nargs="+", default=list(VARIANTS), choices=list(VARIANTS))
    parser.add_argument("--cache", type=Path, default=ROOT / "var" / "models")
    parser.add_argument("--json", default="")
    parser.add_argument("--variant", help=argparse.SUPPRESS)  # internal: one variant
    parser.add_argument("--samples", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.variant:
        print(json.dumps(one_variant(args.variant, args.samples, args.cache, args.group_size)))
        return
    samples_path, sampling = make_samples(args)
    print(
        f"sampling: G={args.group_size} x P={args.prompts}, {sampling['sampled_tokens']} tokens "
        f"in {sampling['sampling_s']:.1f} s = {sampling['tokens_per_s']:.1f} tokens/s "
        f"({args.threads} thread{'s' if args.threads > 1 else ''}; "
        f"{sampling['tokens_per_cpu_s']:.1f} tokens per CPU second)",
        flush=True,
    )
    rows = []
    for name in args.variants:
        answer = subprocess.run(
            [
                sys.executable,
                __file__,
                "--variant",
                name,
                "--samples",
                str(samples_path),
                "--cache",
                str(args.cache),
                "--group-size",
                str(args.group_size),
            ],
            capture_output=True,
            text=True,
            env={**os.environ, "OMP_NUM_THREADS": "1"},
        )
        if answer.returncode:
            rows.append({"variant": name, "error": answer.stderr.strip().splitlines()[-1]})
        else:
            rows.append(json.loads(answer.stdout.strip().splitlines()[-1]))
        row = rows[-1]
        step = sampling["sampling_s"] + row.get("old_logprobs_s", 0) + row.get("update_s", 0)
        row["step_s"] = round(step, 1) if "error" not in row else None
        print(
            f"{name:20s} trainable {row.get('trainable_parameters', 0) / 1e6:7.2f} M  "
            f"π_old {row.get('old_logprobs_s', '-'):>6} s ({row.get('old_logprobs_cpu_s', '-')} "
            f"CPU)  update {row.get('update_s', '-'):>6} s ({row.get('update_cpu_s', '-')} CPU)  "
            f"step {row.get('step_s', '-'):>6} s  peak {row.get('peak_rss_gb', '-'):>5} GB"
            + (f"  ERROR {row['error']}" if "error" in row else ""),
            flush=True,
        )
    result = {
        "model": MODEL,
        "group_size": args.group_size,
        "prompts": args.prompts,
        "max_new_tokens": args.max_new_tokens,
        "cpu_count": os.cpu_count(),
        "sampling": sampling,
        "variants": rows,
    }
    print(json.dumps(result))
    if args.json:
        Path(args.json).write_text(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
