"""codeopt from a notebook: the API's resources as pandas DataFrames (docs/notebook.md).

    from integrations.notebook import Codeopt
    co = Codeopt("http://127.0.0.1:8000", token)
    runs = co.runs(status="finished")              # one row per run: config.*, summary.*
    curves = co.history(runs.id[0], ["rewards/mean", "groups/mixed"])   # step x key
    evaluation = co.evaluate(run=runs.id[0])       # the run's latest checkpoint
    co.wait(evaluation)                            # progress printed, then its detail
    co.evaluations(run=runs.id[0])                 # pτ with intervals, one row each

The same HTTP calls as the pages make (GET /api/runs/, /api/runs/<id>/metrics/,
/api/evaluations/ ...), under your API token; a refused field raises ServerRejected naming it.
Needs pandas (in codeopt's dependencies) beside the standard library.
"""

from __future__ import annotations

import json
import math
import time
import urllib.parse

import pandas as pd

try:
    from runs.client import ServerRejected, api_request
except ImportError:  # copied next to a notebook without the checkout on sys.path
    raise ImportError("integrations/notebook.py needs runs/client.py importable") from None

__all__ = ["Codeopt", "ServerRejected"]


class Codeopt:
    """A codeopt server under one API token (Account page, or `manage.py drf_create_token`)."""

    def __init__(self, server: str, token: str, *, timeout: float = 60.0):
        self.server = server.rstrip("/")
        self.token = token
        self.timeout = timeout

    # -- HTTP -------------------------------------------------------------------------------

    def get(self, path: str, **params) -> dict:
        query = urllib.parse.urlencode(
            {k: v for k, v in params.items() if v is not None}, doseq=True
        )
        url = f"{self.server}{path}" + (f"?{query}" if query else "")
        return api_request("GET", url, self.token, None, self.timeout)

    def post(self, path: str, body: dict | None = None) -> dict:
        return api_request("POST", self.server + path, self.token, body or {}, self.timeout)

    def _pages(self, path: str, **params) -> list[dict]:
        """Every row of a paged list (limit/offset), in order."""
        rows, offset = [], 0
        while True:
            page = self.get(path, limit=100, offset=offset, **params)
            rows += page["results"]
            offset += len(page["results"])
            if not page.get("next") or not page["results"]:
                return rows

    # -- runs -------------------------------------------------------------------------------

    def runs(self, *, q: str = "", status: str = "", team: str = "") -> pd.DataFrame:
        """One row per run you can see, newest first: its fields, `config.<key>` for each
        config entry (nested keys dotted) and `summary.<metric>` for each metric's last
        value (MLflow's search_runs, W&B's Api().runs())."""
        rows = self._pages("/api/runs/", q=q or None, status=status or None, team=team or None)
        frame = pd.json_normalize(rows, sep=".")
        if frame.empty:
            return pd.DataFrame(columns=["id", "name", "status"])
        for column in [c for c in frame.columns if c.startswith("summary.")]:
            frame[column] = frame[column].map(_number).astype("float64")  # "NaN" is sent as text
        return frame

    def history(self, run: int, keys: list[str] | None = None, *, max_points: int = 10_000):
        """A run's series, one column per metric key, indexed by step (W&B's
        run.history()); a series downsampled past `max_points` keeps its extremes."""
        answer = self.get(f"/api/runs/{int(run)}/metrics/", key=keys, max_points=max_points)
        columns = {
            key: pd.Series(series["values"], index=series["steps"], dtype="float64")
            for key, series in answer["series"].items()
        }
        frame = pd.DataFrame(columns)
        frame.index.name = "step"
        return frame.sort_index()

    def compare_configs(self, runs: list[int]) -> pd.DataFrame:
        """The config keys whose values differ between the runs (a column per run)."""
        rows = {int(r): self.get(f"/api/runs/{int(r)}/") for r in runs}
        flat = {
            f"#{rid} {row['name']}": pd.json_normalize(row.get("config") or {}, sep=".").iloc[0]
            if isinstance(row.get("config"), dict) and row["config"]
            else pd.Series(dtype=object)
            for rid, row in rows.items()
        }
        table = pd.DataFrame(flat)
        differs = table.astype(str).nunique(axis=1, dropna=False) > 1
        return table[differs].sort_index()

    def samples(self, run: int, step: int | None = None) -> pd.DataFrame:
        """A step's rollout samples (default: the run's latest step), as the Samples page."""
        return pd.DataFrame(self._pages("/api/samples/", run=int(run), step=step))

    # -- training and timing --

    def train(self, config: dict, *, name: str = "", team: str = "") -> dict:
        """Start a training run from a TrainConfig (`config`: its fields, `model` required;
        the rest keep their defaults), as the Training page's form; its status (`id`: the
        run's). A refused field raises ServerRejected naming it (`config.<field>`)."""
        body: dict = {"config": dict(config)}
        if name:
            body["name"] = name
        if team:
            body["team"] = team
        return self.post("/api/training/", body)

    def training(self, run: int) -> dict:
        """A training run's status: `status`, `step` of `steps`, `stage`, `progress` (the run
        page's line in `progress.text`), `stop_requested`, `checkpoints`, times."""
        return self.get(f"/api/training/{int(run)}/")

    def stop(self, run: int) -> dict:
        """Stop a run after its current step, with a checkpoint (ServerRejected, 409, once it
        has ended); its status."""
        return self.post(f"/api/training/{int(run)}/stop/")

    def resume(self, run: int) -> dict:
        """Queue a stopped or failed run again, to resume from its newest checkpoint
        (ServerRejected, 409, saying why it cannot); its status."""
        return self.post(f"/api/training/{int(run)}/resume/")

    def timing_jobs(self) -> pd.DataFrame:
        """Your timing jobs as the Timing page's table, newest first: state, queue wait,
        progress, verdict, noise."""
        rows = self._pages("/api/timing-jobs/")
        if not rows:
            return pd.DataFrame(columns=["id", "kind", "status", "queue_wait_s"])
        return pd.DataFrame(rows)

    # -- evaluations ------------------------------------------------------------------------

    def evaluate(self, *, run: int | None = None, step: int | None = None,
                 model: str | None = None, **fields) -> int:  # fmt: skip
        """Start an evaluation: of a run's checkpoint (`step`, default its latest), or of a
        base model (`model`); `fields` as the Evaluations form (n, split, taus, ...).
        Returns its id."""
        body = {"source": "run" if run is not None else "model", **fields}
        if run is not None:
            body["run"] = int(run)
            if step is not None:
                body["step"] = int(step)
        if model is not None:
            body["model"] = model
        return int(self.post("/api/evaluations/", body)["id"])

    def wait(self, evaluation: int, *, timeout: float = 3600.0, poll_s: float = 2.0,
             progress=print) -> dict:  # fmt: skip
        """The evaluation once it has ended (its detail), printing progress as it changes;
        RuntimeError if it failed, TimeoutError past `timeout`."""
        deadline, said = time.monotonic() + timeout, None
        while True:
            detail = self.get(f"/api/evaluations/{int(evaluation)}/")
            news = (detail["status"], detail["stage"], detail["progress"]["done"])
            if progress is not None and news != said:
                done, total = detail["progress"]["done"], detail["progress"]["total"]
                progress(f"evaluation {evaluation}: {detail['status']} {detail['stage']} "
                         f"{done}/{total}".rstrip())  # fmt: skip
                said = news
            if detail["status"] == "done":
                return detail
            if detail["status"] == "failed":
                raise RuntimeError(f"evaluation {evaluation} failed: {detail['error']}")
            if time.monotonic() > deadline:
                raise TimeoutError(
                    f"evaluation {evaluation} is {detail['status']} after {timeout} s"
                )
            time.sleep(poll_s)

    def cancel(self, evaluation: int) -> dict:
        return self.post(f"/api/evaluations/{int(evaluation)}/cancel/")

    def evaluations(self, *, run: int | None = None, status: str | None = None) -> pd.DataFrame:
        """One row per evaluation you can see: its fields, and per τ `p<τ>`, `p<τ>_low`,
        `p<τ>_high` (the 95% interval; NaN where there is none)."""
        rows = self._pages("/api/evaluations/", run=run, status=status)
        return pd.DataFrame([_flat_evaluation(row) for row in rows])

    def compare(self, evaluations: list[int]) -> pd.DataFrame:
        """The evaluations side by side, indexed by id: pτ and intervals per τ, the share
        beating the fastest human, and each one's win rate against each other (`win_vs_<id>`)."""
        ids = ",".join(str(int(e)) for e in evaluations)
        answer = self.get("/api/evaluations/compare/", ids=ids)
        frame = pd.DataFrame(
            [
                {k: v for k, v in row.items() if not k.endswith("_ci")} | _intervals(row)
                for row in answer["rows"]
            ]  # fmt: skip
        ).set_index("evaluation")
        wins = answer["win_rates"]
        for column, other in enumerate(wins["ids"]):
            frame[f"win_vs_{other}"] = pd.Series(
                {
                    row_id: (cells[column] or {}).get("rate")
                    for row_id, cells in zip(wins["ids"], wins["matrix"], strict=True)
                }  # fmt: skip
            )
        return frame

    # -- judges, rewards and datasets --

    def judge_batch(self, *, evaluation: int | None = None, run: int | None = None,
                    pairs: list[dict] | str | None = None, **fields) -> int:  # fmt: skip
        """Start a judge batch, as the Judges form: of an evaluation (or a run's latest
        finished one), or of `pairs` ({problem, baseline, optimized, and optionally
        baseline_s, optimized_s, statement, category} dicts, or a JSON-lines file's text);
        `fields` as the form (baseline, judge, measure, name, team). Returns its id."""
        body = dict(fields)
        if evaluation is not None:
            body["evaluation"] = int(evaluation)
        if run is not None:
            body["run"] = int(run)
        if pairs is not None:
            body["pairs"] = pairs if isinstance(pairs, str) else _json_lines(pairs)
        return int(self.post("/api/judge-batches/", body)["id"])

    def judge_pairs(
        self, batch: int, *, problem: str | None = None, category: str | None = None,
        judge: str | None = None,
    ) -> pd.DataFrame:  # fmt: skip
        """One row per pair of the batch, as its page reviews them: problem, kind, speedup,
        `category` (a person's label, else the LLM's, else the analyzer's verdict), `human`
        (a person's label), `truth`, `<judge>_category` and `<judge>_rationale` per judge,
        `evidence.<figure>` of what was measured, and both programs."""
        rows = self._pages(f"/api/judge-batches/{int(batch)}/pairs/", problem=problem,
                           category=category, judge=judge)  # fmt: skip
        return pd.DataFrame([_flat_pair(row) for row in rows])

    def label_pair(self, pair: int, category: str, rationale: str = "") -> dict:
        """A person's category for a pair (replacing theirs), as the batch page's correction;
        answers the pair's row."""
        body = {"category": category, "rationale": rationale}
        return self.post(f"/api/judge-pairs/{int(pair)}/label/", body)

    def reward_configs(self) -> pd.DataFrame:
        """One row per reward configuration, the recommended first: `fields.<name>` per
        field, its design in words, whether you may change it, runs that use it."""
        rows = self._pages("/api/reward-configs/")
        for row in rows:
            row["design"] = "; ".join(row["design"])
        frame = pd.json_normalize(rows, sep=".")
        return frame if not frame.empty else pd.DataFrame(columns=["id", "name", "design"])

    def simulate(self, configs: list[str], **fields) -> int:
        """Queue a simulation of saved configurations, as the Rewards form; `fields`:
        noise_cvs (a list), group_size, problems, split, rank_against. Returns its id."""
        body = {"configs": list(configs), **fields}
        return int(self.post("/api/reward-simulations/", body)["id"])

    def simulations(self) -> pd.DataFrame:
        """One row per simulation, newest first, as the Rewards page's table."""
        return pd.DataFrame(self._pages("/api/reward-simulations/"))

    def build_dataset(self, problems: list[str] | None = None, **fields) -> int:
        """Queue a dataset build, as the Dataset form: `problems` (default every one) and its
        thresholds (slow_target_s, repeats, generator_candidates, min_ratio,
        min_rank_stability, test_fraction). Returns its id."""
        body = {**fields, **({"problems": list(problems)} if problems is not None else {})}
        return int(self.post("/api/dataset-builds/", body)["id"])

    def dataset_builds(self) -> pd.DataFrame:
        """One row per dataset build, newest first, as the Dataset page's table (its funnel
        as [[stage, problems], ...])."""
        return pd.DataFrame(self._pages("/api/dataset-builds/"))


NON_FINITE = {"NaN": math.nan, "Infinity": math.inf, "-Infinity": -math.inf}


def _number(value):
    return NON_FINITE.get(value, value) if isinstance(value, str) else value


def _intervals(row: dict) -> dict:
    flat = {}
    for key, value in row.items():
        if key.endswith("_ci") and isinstance(value, list):
            flat[f"{key[:-3]}_low"], flat[f"{key[:-3]}_high"] = value
    return flat


def _flat_evaluation(row: dict) -> dict:
    flat = {k: v for k, v in row.items() if k not in ("p_tau", "progress")}
    flat["progress"] = (
        row["progress"]["done"] / row["progress"]["total"] if row["progress"]["total"] else None
    )
    for tau, estimate in (row.get("p_tau") or {}).items():
        flat[f"p{tau}"] = estimate["value"]
        flat[f"p{tau}_low"], flat[f"p{tau}_high"] = estimate["low"], estimate["high"]
    return flat


def _json_lines(rows: list[dict]) -> str:
    return "".join(json.dumps(row) + "\n" for row in rows)


def _flat_pair(row: dict) -> dict:
    flat = {k: v for k, v in row.items() if k not in ("judges", "evidence")}
    for judge, verdict in row["judges"].items():
        flat[f"{judge}_category"] = verdict["category"]
        flat[f"{judge}_rationale"] = verdict["rationale"]
    for key, value in (row["evidence"] or {}).items():
        if key != "rows":  # a row per size: the figures below summarize them
            flat[f"evidence.{key}"] = value
    return flat
