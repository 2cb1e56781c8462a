"""A split's problems as a prompt dataset, in the shapes trainers' loaders read. Plain Python
(pyarrow for Parquet), no Django: rows in, bytes out.

- `trl`: `prompt` is the text the model continues (TRL's "standard" format; a chat list would
  be its "conversational" one); every other column reaches a TRL reward function as a keyword
  argument, so `problem` comes back with each completion (integrations/trl.py).
- `verl`: verl's RLHFDataset row: `data_source`, `prompt` as chat messages, `ability`,
  `reward_model` {"style": "rule", "ground_truth": slug} and `extra_info`; verl's reward manager
  hands `data_source`, `ground_truth` and `extra_info` to compute_score (integrations/verl.py).
- `openrlhf`: `input` as chat messages (`--data.input_key input --data.apply_chat_template`)
  and `label` the slug (`--data.label_key label`), which OpenRLHF's remote reward request
  carries back (scoring/protocols.py).
"""

from __future__ import annotations

import io
import json
from dataclasses import dataclass

DATA_SOURCE = "codeopt"
SHAPES = ("trl", "verl", "openrlhf")
FILE_FORMATS = ("jsonl", "parquet")
MEDIA_TYPES = {"jsonl": "application/x-ndjson", "parquet": "application/vnd.apache.parquet"}


@dataclass
class PromptRow:
    problem: str  # the slug: what a trainer passes back to POST /api/scoring/
    prompt: str  # as our trainer prompts (training/prompts.make_prompt)
    split: str
    messages: list[dict] | None = None  # the prompt as chat turns (prompts.chat_messages)


def shaped(row: PromptRow, shape: str, index: int = 0) -> dict:
    """One dataset record of `row` in `shape` (SHAPES); `index`: its place in the file."""
    if shape == "trl":
        return {"prompt": row.prompt, "problem": row.problem, "split": row.split}
    if shape == "verl":
        return {
            "data_source": DATA_SOURCE,
            "prompt": row.messages or [{"role": "user", "content": row.prompt}],
            "ability": "code",
            "reward_model": {"style": "rule", "ground_truth": row.problem},
            # index: the row, which names the group of a per-sample reward call
            "extra_info": {"problem": row.problem, "split": row.split, "index": index},
            "problem": row.problem,
        }
    if shape == "openrlhf":
        return {
            "input": row.messages or [{"role": "user", "content": row.prompt}],
            "label": row.problem,
        }
    raise ValueError(f"shape: {shape!r} is not one of {', '.join(SHAPES)}")


def encode(rows: list[PromptRow], shape: str, file_format: str) -> bytes:
    """The records as JSON lines or as one Parquet file (one row group)."""
    records = [shaped(row, shape, index) for index, row in enumerate(rows)]
    if file_format == "jsonl":
        return "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records).encode()
    if file_format == "parquet":
        import pyarrow as pa
        import pyarrow.parquet as pq

        buffer = io.BytesIO()
        table = pa.Table.from_pylist(records) if records else pa.table({"prompt": []})
        pq.write_table(table, buffer)
        return buffer.getvalue()
    raise ValueError(f"file_format: {file_format!r} is not one of {', '.join(FILE_FORMATS)}")
