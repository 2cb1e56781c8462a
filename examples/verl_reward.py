"""verl's reward wiring against a codeopt server, checked without verl: the split's Parquet in
verl's shape, and the reward functions called with verl's arguments (verl itself runs them
in tests/integrations/test_verl_reward_loop.py).

    CODEOPT_SERVER=http://127.0.0.1:8000 CODEOPT_TOKEN=TOKEN \\
        python examples/verl_reward.py --split train

In a verl run (integrations/verl.py says more):

    data.train_files=codeopt-train.parquet
    reward.custom_reward_function.path=integrations/verl.py
    reward.custom_reward_function.name=compute_score
    +reward.custom_reward_function.reward_kwargs.group_size=8    # = rollout.n
"""

from __future__ import annotations

import argparse
import io
import os
import sys
import urllib.request
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # run from a checkout

from integrations.verl import compute_score_batch, score_sample  # noqa: E402


def main(argv: list[str] | None = None) -> list[float]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--split", default="train")
    parser.add_argument("--out", default="", help="Also write the Parquet file here.")
    parser.add_argument(
        "--model",
        default="tiny",
        help="The model the prompts are written for "
        "(smollm2-135m-instruct: its system and user turns; verl applies the "
        "chat template).",
    )
    args = parser.parse_args(argv)
    import pyarrow.parquet as pq

    server = os.environ.get("CODEOPT_SERVER", "http://127.0.0.1:8000").rstrip("/")
    url = f"{server}/api/problems/export/?split={args.split}&shape=verl&file_format=parquet"
    url += f"&model={args.model}"
    request = urllib.request.Request(
        url, headers={"Authorization": f"Token {os.environ['CODEOPT_TOKEN']}"}
    )
    with urllib.request.urlopen(request, timeout=60) as answer:
        body = answer.read()
    if args.out:
        Path(args.out).write_bytes(body)
    rows = pq.read_table(io.BytesIO(body)).to_pylist()
    # two responses per prompt, as a rollout of n=2 would give: a program, and no program
    responses = ["print(sum(map(int, open(0).read().split()[1:])))\n```", "I do not know"]
    batch = [(row, text) for row in rows for text in responses]
    rewards = compute_score_batch(  # verl's BatchRewardManager passes keyword arguments
        data_sources=[row["data_source"] for row, _ in batch],
        solution_strs=[text for _, text in batch],
        ground_truths=[row["reward_model"]["ground_truth"] for row, _ in batch],
        extra_infos=[row["extra_info"] for row, _ in batch],
    )
    single = score_sample(  # verl's per-sample call, a group of one: scored at once
        data_source=rows[0]["data_source"],
        solution_str=responses[1],
        ground_truth=rows[0]["reward_model"]["ground_truth"],
        extra_info=rows[0]["extra_info"],
        group_size=1,
    )["score"]
    for (row, text), reward in zip(batch, rewards, strict=True):
        print(f"{row['reward_model']['ground_truth']:<30} {reward:+.3f}  {text[:40]!r}")
    return [*rewards, single]


if __name__ == "__main__":
    main()
