"""Score programs from any trainer through a codeopt server. Standard library only (with
runs/client.py beside it: copy both next to a TRL, verl or hand-written loop, or import them
from the codeopt package).

`score(base_url, token, groups, reward_config)` sends programs (or
completions) to POST /api/scoring/, long-polls GET /api/scoring/<id>/?wait= until the timing
workers are done and returns the rewards per group in the order sent; `ScoringClient` keeps
the settings and gives the whole answer (verdicts, speed percentiles, group kinds). An
unreachable server, a 5xx or a 429 is retried with backoff; past the retries a
ServiceUnavailable says which server did not answer. A 4xx names the refused field
(ServerRejected); a job that failed raises ScoringFailed.
"""

from __future__ import annotations

import json
import time
import uuid

from runs.client import (  # noqa: F401  (ServerRejected: a 4xx)
    MAX_BACKOFF,
    ServerBusy,
    ServerRejected,
    api_request,
)


class ServiceUnavailable(ConnectionError):
    """The scoring service did not answer (down, or overloaded) through every retry."""


class ScoringFailed(RuntimeError):
    """The scoring job ended `failed` (its error says why; one failed in the sandbox can be
    retried from the Timing page and waited for again)."""


class SandboxFailed(ScoringFailed):
    """The scoring job failed in the sandbox (not the programs' fault: no reward was made
    up); `job_id` can be retried from the Timing page."""

    def __init__(self, message: str, job_id: int):
        super().__init__(message)
        self.job_id = job_id


class ScoringClient:
    """Scoring through a codeopt server's API (POST /api/scoring/, GET .../<id>/?wait=).

    groups: [{"problem": SLUG, "programs": [TEXT, ...]}] or "completions" instead of
    "programs", or (slug, programs) pairs."""

    def __init__(
        self,
        base_url: str,
        token: str,
        *,
        timeout: float = 3600.0,
        retries: int = 6,
        poll_wait: float = 30.0,
    ):
        self.base_url = base_url.rstrip("/")
        self.token = token
        self.timeout = timeout  # seconds a job may take, queue wait included
        self.retries = retries  # attempts per HTTP call, with doubling backoff
        self.poll_wait = poll_wait  # seconds of one long-poll

    def _call(self, method: str, path: str, body: dict | None, timeout: float) -> dict:
        delay, last = 0.5, None
        for _ in range(max(self.retries, 1)):
            try:
                return api_request(method, self.base_url + path, self.token, body, timeout)
            except ConnectionError as exc:  # down, 5xx, 429: worth another try
                last = exc
                time.sleep(delay)
                delay = min(delay * 2, MAX_BACKOFF)
        raise ServiceUnavailable(
            f"codeopt scoring service at {self.base_url} did not answer {method} {path} "
            f"after {self.retries} attempts (is the server up?): {last}"
        )

    def submit(self, groups, reward_config: str, **fields) -> int:
        """Queue a scoring job; returns its id. fields: run, step, policy_version, tie_band,
        request_key (default: a fresh random one, so that a retry of this POST after a lost
        answer gets the same job back instead of queueing it twice)."""
        sent = [
            group if isinstance(group, dict) else {"problem": group[0], "programs": list(group[1])}
            for group in groups
        ]
        body = {"reward_config": reward_config, "groups": sent, "request_key": uuid.uuid4().hex}
        body.update({k: v for k, v in fields.items() if v is not None})
        return int(self._call("POST", "/api/scoring/", body, 60.0)["id"])

    def wait(self, job_id: int, *, sandbox_failure: str = "wait") -> dict:
        """The job's answer once done (long-polls); ScoringFailed if it failed, TimeoutError
        past `timeout`. A job failed in the sandbox may be retried from the Timing page:
        `sandbox_failure="wait"` waits for that, "raise" raises SandboxFailed at once."""
        deadline = time.monotonic() + self.timeout
        while True:
            wait = max(min(self.poll_wait, deadline - time.monotonic()), 0.0)
            answer = self._call("GET", f"/api/scoring/{job_id}/?wait={wait:.1f}", None, wait + 30)
            if answer["status"] == "done":
                return answer
            failed = answer["status"] == "failed"
            if failed and answer["error"].startswith("SandboxError"):
                if sandbox_failure == "raise":
                    message = f"scoring job {job_id} failed in the sandbox: {answer['error']}"
                    raise SandboxFailed(message, job_id)
            elif failed:
                raise ScoringFailed(f"scoring job {job_id} failed: {answer['error']}")
            if time.monotonic() >= deadline:
                raise TimeoutError(
                    f"scoring job {job_id} is {answer['status']} after {self.timeout:g} s "
                    f"({answer.get('stage') or 'no stage'}): is a worker consuming `timing`?"
                )

    def score_job(self, groups, reward_config: str, *, sandbox_failure="wait", **fields) -> dict:
        job_id = self.submit(groups, reward_config, **fields)
        return self.wait(job_id, sandbox_failure=sandbox_failure)

    def score_samples(
        self,
        problem: str,
        completions: list[str],
        reward_config: str,
        *,
        group: str,
        group_size: int,
        window_s: float | None = None,
    ) -> list[dict]:
        """Samples of one group sent as they come (POST /api/scoring/samples/): the server
        gathers them with the rest of `group` (up to `group_size`, or for `window_s`), scores
        the group as one and answers each sample's score with its group's kind and size.
        Sent once, not retried: a retry would add the samples to the group again.
        SandboxFailed when the group's job failed in the sandbox, ScoringFailed when it got
        no scores otherwise."""
        body = {
            "reward_config": reward_config,
            "problem": problem,
            "completions": list(completions),
            "group": group,
            "group_size": group_size,
        }
        if window_s is not None:
            body["window_s"] = window_s
        url = self.base_url + "/api/scoring/samples/"
        try:
            return api_request("POST", url, self.token, body, self.timeout)["samples"]
        except ServerBusy as exc:
            if exc.code != 503:
                raise ServiceUnavailable(
                    f"codeopt scoring service at {self.base_url}: {exc}"
                ) from None
            try:
                answer = json.loads(exc.text)
            except ValueError:
                answer = {}
            detail = answer.get("detail") or str(exc)
            if answer.get("sandbox"):
                raise SandboxFailed(detail, answer.get("job")) from None
            raise ScoringFailed(detail) from None
        except ConnectionError as exc:
            raise ServiceUnavailable(f"codeopt scoring service at {self.base_url}: {exc}") from None

    def score(self, groups, reward_config: str, **fields) -> list[list[float]]:
        answer = self.score_job(groups, reward_config, **fields)
        return [[sample["reward"] for sample in group["samples"]] for group in answer["groups"]]


def score(base_url: str, token: str, groups, reward_config: str, **fields) -> list[list[float]]:
    """Rewards per group, in the order sent (ScoringClient.score with its defaults; fields:
    run, step, policy_version, tie_band)."""
    return ScoringClient(base_url, token).score(groups, reward_config, **fields)
