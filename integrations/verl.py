"""verl against a codeopt server: its reward function, per sample or per batch, and its
metrics. Standard library only, beside scoring/client.py and runs/client.py.

Rewards are relative to a group (a program is ranked among the programs of its prompt), so
every form below scores the samples of one prompt as one group:

- **Per sample** (verl 0.9's reward loop and its default `naive` reward manager): verl calls
  `compute_score(data_source, solution_str, ground_truth, extra_info)` once per response,
  as rollouts finish, from `reward.num_workers` Ray workers, so the samples of one prompt
  reach different processes. `compute_score` (async; verl awaits it) sends each sample to
  POST /api/scoring/samples/ naming its group: the problem (`ground_truth`) and the dataset
  row (`extra_info.index`, which our export writes). The service gathers the group until it
  holds `group_size` samples (verl's `actor_rollout_ref.rollout.n`) or `window_s` passes,
  scores it as one, and answers each sample. Configure:

      reward.custom_reward_function.path=integrations/verl.py
      reward.custom_reward_function.name=compute_score
      +reward.custom_reward_function.reward_kwargs.group_size=8    # = rollout.n
      +reward.custom_reward_function.reward_kwargs.server=http://HOST:8000
      +reward.custom_reward_function.reward_kwargs.reward_config=binary-top30

  with CODEOPT_TOKEN in the environment (Ray's workers inherit it) or a `token` reward
  kwarg. The result is a dict: verl uses `score` and logs the other keys (`correct`,
  `speed_percentile`, NaN for an incorrect program, `group_mixed`, `group_size`).
  What a per-sample call loses: a sample whose group mates never arrive (a rollout dropped,
  or more than `window_s` later) is scored with those that came, in a smaller group; the
  answer's `group_size` says with how many.
- **Per batch** (`compute_score_batch`, verl's legacy `batch` reward manager): the batch's
  responses are grouped by (problem, extra_info.index) in process and sent as one scoring
  job (POST /api/scoring/).

A group the service could not measure (its job failed in the sandbox after the service's own
retries) gets no reward: verl has no "no reward", so the call raises SandboxFailed naming the
job, and the step stops rather than train on a made-up number.

Metrics: verl loads its tracking backends by name from a fixed list (`trainer.logger`), with
no entry point for others. Its `file` backend writes each step's metrics as a JSON line;
`python integrations/verl.py follow FILE --run ID` sends them to a codeopt run as they are
written (`trainer.logger=[console,file]`, `VERL_FILE_LOGGER_PATH=FILE`). Code that builds
verl's `Tracking` itself can add `CodeoptTracking` to its `logger` dict instead.

The dataset is GET /api/problems/export/?shape=verl&file_format=parquet
(`reward_model.ground_truth` is the problem's slug, `extra_info.index` the row).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import math
import os
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

try:
    from runs.client import MetricsClient
    from scoring.client import ScoringClient
except ImportError:  # loaded by file path (verl's custom_reward_function) from a checkout
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    from runs.client import MetricsClient
    from scoring.client import ScoringClient

DEFAULT_SERVER = "http://127.0.0.1:8000"
_requests = ThreadPoolExecutor(max_workers=512, thread_name_prefix="codeopt-sample")
"""The per-sample requests wait for their group: one thread each, as many as verl sends at
once (an event loop's default executor has a few dozen, and would hold the rest back until
the window closed the groups short)."""


def _settings(server, token, reward_config) -> tuple[ScoringClient, str]:
    server = server or os.environ.get("CODEOPT_SERVER", DEFAULT_SERVER)
    token = token or os.environ["CODEOPT_TOKEN"]
    reward_config = reward_config or os.environ.get("CODEOPT_REWARD_CONFIG", "binary-top30")
    return ScoringClient(server, token), reward_config


def _row(ground_truth: str, extra_info) -> str:
    """The group's name: the problem and its dataset row."""
    index = (extra_info or {}).get("index")
    return f"{ground_truth}#{index}" if index is not None else ground_truth


def _result(sample: dict) -> dict:
    percentile = sample["speed_percentile"]
    return {
        "score": float(sample["reward"]),
        "correct": float(bool(sample["correct"])),
        "speed_percentile": math.nan if percentile is None else float(percentile),
        "group_mixed": float(sample["group"]["kind"] == "mixed"),
        "group_size": float(sample["group"]["size"]),
    }


def score_sample(
    data_source,
    solution_str,
    ground_truth,
    extra_info=None,
    *,
    group_size: int,
    window_s: float | None = None,
    server: str | None = None,
    token: str | None = None,
    reward_config: str | None = None,
    **kwargs,
) -> dict:
    """verl's per-sample reward, blocking until the sample's group is scored."""
    client, reward_config = _settings(server, token, reward_config)
    sample = client.score_samples(
        ground_truth,
        [solution_str],
        reward_config,
        group=_row(ground_truth, extra_info),
        group_size=int(group_size),
        window_s=window_s,
    )[0]
    return _result(sample)


async def compute_score(data_source, solution_str, ground_truth, extra_info=None, **kwargs):
    """verl's per-sample reward, awaited by verl's reward loop (score_sample in a thread of
    its own, so that every sample of a group can wait for the others at once)."""
    loop = asyncio.get_running_loop()
    call = lambda: score_sample(data_source, solution_str, ground_truth, extra_info, **kwargs)  # noqa: E731
    return await loop.run_in_executor(_requests, call)


def compute_score_batch(
    data_sources,
    solution_strs,
    ground_truths,
    extra_infos=None,
    *,
    server: str | None = None,
    token: str | None = None,
    reward_config: str | None = None,
    **kwargs,
) -> list[float]:
    """verl's batch form: one reward per response, the responses of one dataset row scored
    as one group (in the batch's order), in one scoring job."""
    client, reward_config = _settings(server, token, reward_config)
    infos = extra_infos or [None] * len(solution_strs)
    groups: dict[str, list[int]] = {}
    for index, (slug, info) in enumerate(zip(ground_truths, infos, strict=True)):
        groups.setdefault(_row(slug, info), []).append(index)
    sent = [
        {"problem": ground_truths[indexes[0]], "completions": [solution_strs[i] for i in indexes]}
        for indexes in groups.values()
    ]
    step = kwargs.get("step")
    run = os.environ.get("CODEOPT_RUN")
    fields = {"run": int(run), "step": step} if run and step is not None else {}
    answer = client.score_job(sent, reward_config, sandbox_failure="raise", **fields)
    rewards = [0.0] * len(solution_strs)
    for indexes, group in zip(groups.values(), answer["groups"], strict=True):
        for index, sample in zip(indexes, group["samples"], strict=True):
            rewards[index] = float(sample["reward"])
    return rewards


class CodeoptTracking:
    """A verl tracking backend (verl's `Tracking.log` calls `log(data=..., step=...)` on
    each): verl's metrics (`actor/pg_loss`, `critic/score/mean`, ...) to a codeopt run
    under `verl/`."""

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


def follow(path: Path, tracking: CodeoptTracking, *, idle_s: float, poll_s: float = 0.5) -> int:
    """Send the lines verl's `file` backend writes ({"step", "data"}) as they come; stop
    once the file has not grown for `idle_s` seconds (0: at its end). Returns the lines sent."""
    sent, seen = 0, time.monotonic()
    while not path.exists():
        if time.monotonic() - seen > idle_s:
            raise FileNotFoundError(f"{path}: verl's file logger has written nothing yet")
        time.sleep(poll_s)
    with open(path, encoding="utf-8") as lines:
        pending = ""
        while True:
            chunk = lines.readline()
            if chunk:
                pending += chunk
                if pending.endswith("\n"):  # a whole line; a part waits for its rest
                    record = json.loads(pending)
                    tracking.log(record["data"], int(record["step"]))
                    sent, pending, seen = sent + 1, "", time.monotonic()
                continue
            if time.monotonic() - seen >= idle_s:
                return sent
            time.sleep(poll_s)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Follow verl's file logger into a codeopt run.")
    sub = parser.add_subparsers(dest="command", required=True)
    tail = sub.add_parser("follow", help="Send verl's file-logger lines to a run.")
    tail.add_argument("path", type=Path, help="verl's VERL_FILE_LOGGER_PATH.")
    tail.add_argument("--run", type=int, required=True, help="The codeopt run's id.")
    tail.add_argument("--server", default=os.environ.get("CODEOPT_SERVER", DEFAULT_SERVER))
    tail.add_argument(
        "--idle", type=float, default=600.0, help="Stop after this many seconds without a line."
    )
    args = parser.parse_args(argv)
    tracking = CodeoptTracking(args.server, os.environ["CODEOPT_TOKEN"], args.run)
    try:
        sent = follow(args.path, tracking, idle_s=args.idle)
    finally:
        tracking.finish()
    print(f"{sent} steps of verl metrics sent to run {args.run}")
    return sent


if __name__ == "__main__":
    main()
