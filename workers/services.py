"""Worker-side services: the only place that changes workers' state."""

from __future__ import annotations

import random
import time
import uuid
from pathlib import Path

import numpy as np
from django.conf import settings
from django.db import transaction
from django.db.models import F
from django.utils import timezone
from rest_framework.authtoken.models import Token

from codeopt_site.jobs import failure_recorded
from runs import client
from runs.models import Run
from workers.execution.engine import LANGUAGES, MAX_SOURCE_BYTES, MODES, Case
from workers.execution.package import PackageError, load_package
from workers.execution.report import jitter_package, measure_package
from workers.models import TimingJob
from workers.synthetic import synthetic_step


def do_replay_synthetic_run(run_id: int, api_url: str, total_steps: int, interval: float) -> int:
    """Stream the synthetic metrics of `run_id` through the HTTP API, as a trainer would.

    Going through the API (not the database) is what makes the points reach open pages in
    every deployment, the in-process channel layer included. Returns the steps sent.
    """
    run = Run.objects.select_related("owner").get(pk=run_id)
    token, _ = Token.objects.get_or_create(user=run.owner)
    metrics = client.MetricsClient(
        api_url, token.key, run_id, flush_interval=interval, spool_dir=settings.VAR_DIR / "spool"
    )
    rng = random.Random(run_id)
    try:
        for step in range(total_steps):
            metrics.log(step, synthetic_step(step, total_steps, rng))
            time.sleep(interval)
    finally:
        metrics.close(timeout=60)
    client.set_status(api_url, token.key, run_id, "finished")
    return total_steps


# --- timing jobs ----------------------------------------------------------------------------


def check_timing_job(
    *,
    package_dir: str,
    source: str,
    language: str,
    modes: list[str],
    repeats: int,
    remeasure: int,
    kind: str,
) -> None:
    """ValueError("field: reason") for the first bad field."""
    if kind not in TimingJob.Kind.values:
        raise ValueError(f"kind: must be one of {', '.join(TimingJob.Kind.values)}")
    if language not in LANGUAGES:
        raise ValueError(f"language: must be one of {', '.join(LANGUAGES)}")
    if not modes or any(m not in MODES for m in modes):
        raise ValueError(f"modes: each must be one of {', '.join(MODES)}")
    if kind == TimingJob.Kind.MEASURE and len(modes) != 1:
        raise ValueError("modes: a measure job takes exactly one mode")
    if not 1 <= repeats <= 50:
        raise ValueError("repeats: must be between 1 and 50")
    if not 2 <= remeasure <= 20:
        raise ValueError("remeasure: must be between 2 and 20")
    if not source.strip():
        raise ValueError("source: is empty")
    if len(source.encode()) > MAX_SOURCE_BYTES:
        raise ValueError(f"source: over {MAX_SOURCE_BYTES} bytes")
    try:
        load_package(Path(package_dir))
    except PackageError as exc:
        raise ValueError(f"package_dir: {exc}") from None


def do_submit_timing_job(owner, **fields) -> TimingJob:
    """Validate, store, and queue the job on `timing` once the row is committed."""
    modes = [m.strip() for m in fields.pop("modes").split(",") if m.strip()]
    check_timing_job(modes=modes, **fields)
    job = TimingJob.objects.create(owner=owner, modes=",".join(modes), **fields)
    transaction.on_commit(lambda: notify_timing_queue(job.id))
    return job


def notify_timing_queue(job_id) -> None:
    from workers.tasks import run_timing_job

    run_timing_job.apply_async(args=[str(job_id)], queue="timing")


def _claim(job_id: str, worker: str) -> TimingJob | None:
    """Mark the job running, or None when it already ended (a re-delivered message).

    A job found `running` was started by a worker that died (its message came back because
    tasks are acknowledged late): results are only written at the end, so it restarts clean.
    """
    with transaction.atomic():
        job = TimingJob.objects.select_for_update().get(pk=job_id)
        if job.status in (TimingJob.Status.DONE, TimingJob.Status.FAILED):
            return None
        job.status = TimingJob.Status.RUNNING
        job.worker = worker
        job.started_at = timezone.now()
        job.attempts += 1
        job.progress_done = 0
        job.save(update_fields=["status", "worker", "started_at", "attempts", "progress_done"])
    return job


def do_run_timing_job(job_id: str, worker: str) -> str:
    """Run a queued job to the end and store its result; returns its final status."""
    job = _claim(job_id, worker)
    if job is None:
        return "skipped"

    def progress(done: int, total: int, label: str) -> None:
        TimingJob.objects.filter(pk=job.pk).update(progress_done=done, progress_total=total)

    options = dict(
        repeats=job.repeats,
        reference_folders=tuple(f for f in job.reference_folders.split(",") if f),
        on_progress=progress,
    )
    try:
        if job.kind == TimingJob.Kind.JITTER:
            result = jitter_package(
                Path(job.package_dir),
                job.source,
                job.language,
                modes=tuple(job.modes.split(",")),
                remeasure=job.remeasure,
                **options,
            )
        else:
            result = measure_package(
                Path(job.package_dir), job.source, job.language, mode=job.modes, **options
            )
    except Exception as exc:  # the job records why it failed; the worker goes on
        TimingJob.objects.filter(pk=job.pk).update(
            status=TimingJob.Status.FAILED,
            error=f"{type(exc).__name__}: {exc}",
            finished_at=timezone.now(),
        )
        return TimingJob.Status.FAILED
    TimingJob.objects.filter(pk=job.pk).update(
        status=TimingJob.Status.DONE,
        result=result,
        finished_at=timezone.now(),
        progress_done=F("progress_total"),
    )
    return TimingJob.Status.DONE


# -- training (issue 6) ------------------------------------------------------------------------
# The engine is workers/training/ (plain Python + torch); these functions are its Django shell:
# they check a request, start a run, build the problems from the database, and report metrics
# through runs.services.do_ingest_metrics (the path every trainer's metrics take).


def check_train_request(config_data: dict):
    """(TrainConfig, RewardConfig row) for a request; ValueError naming the field at fault,
    before anything is created."""
    from rewards.models import RewardConfig
    from workers.training.config import TrainConfig
    from workers.training.policy import TINY

    config = TrainConfig.from_dict(config_data)
    reward = RewardConfig.objects.filter(name=config.reward_config).first()
    if reward is None:
        raise ValueError(f"reward_config: no stored configuration {config.reward_config!r}")
    if config.model != TINY and not (Path(config.model) / "config.json").is_file():
        raise ValueError(f"model: {config.model!r} is neither 'tiny' nor a local model folder")
    if not loaded_problems("" if config.split == "all" else config.split):
        raise ValueError(
            f"split: no {config.split} problem has stored runtimes of Python references on "
            "optimization tests; run a dataset build"
        )
    return config, reward


def do_start_training(*, owner, team, name: str, config, reward, queue: bool = True) -> Run:
    """A Run (status queued, the config stored verbatim, its reward configuration) and its
    TrainingRun; with `queue`, the task goes to the `gpu` queue once committed."""
    from runs.services import do_create_run
    from workers.models import TrainingRun
    from workers.tasks import train

    with transaction.atomic():
        run = do_create_run(
            owner=owner,
            team=team,
            name=name,
            config=config.as_dict(),
            model_name=config.model,
            reward_config=reward,
            tags=["training"],
        )
        TrainingRun.objects.create(
            run=run,
            config=config.as_dict(),
            # unique: a run id reused after a database reset must not resume another's files
            checkpoint_dir=str(
                settings.VAR_DIR / "checkpoints" / f"run-{run.pk}-{uuid.uuid4().hex[:12]}"
            ),
        )
        if queue:
            transaction.on_commit(lambda: train.delay(run.pk))
    return run


def checkpoint_steps(training) -> dict[int, Path]:
    """{step: folder} of a training run's checkpoints on this machine (the starting point,
    step 0, and the newest ones: workers.training.loop)."""
    folder = Path(training.checkpoint_dir)
    return {int(p.name.split("-")[1]): p for p in folder.glob("step-[0-9]*[0-9]")}


def do_request_stop(run: Run) -> None:
    """The run finishes its current step, writes a checkpoint and stops."""
    from workers.models import TrainingRun

    TrainingRun.objects.filter(run=run).update(stop_requested=True)


class DatabaseSink:
    """The trainer's reports: metrics through the ingest service, samples as rows (a step
    re-run after a resume replaces its rows), the stop flag from the TrainingRun row."""

    def __init__(self, training, slugs_to_ids: dict[str, int], lease: str = ""):
        self.training = training
        self.problem_ids = slugs_to_ids
        self.lease = lease  # the delivery's lease token; "" writes unguarded

    def _check_lease(self) -> None:
        from workers.models import TrainingRun

        if (
            self.lease
            and not TrainingRun.objects.filter(pk=self.training.pk, lease=self.lease).exists()
        ):
            raise LeaseLost(f"run {self.training.run_id}: another delivery took the lease")

    def log(self, step: int, metrics: dict[str, float]) -> None:
        from runs.services import do_ingest_metrics

        self._check_lease()

        points = [
            {"step": step, "key": key, "value": None if value != value else float(value)}
            for key, value in sorted(metrics.items())
        ]
        do_ingest_metrics(self.training.run_id, {"points": points})

    def samples(self, step: int, rows) -> None:
        from workers.models import RolloutSample, TrainingRun

        self._check_lease()
        with transaction.atomic():
            RolloutSample.objects.filter(training=self.training, step=step).delete()
            RolloutSample.objects.bulk_create(
                RolloutSample(
                    training=self.training,
                    step=step,
                    problem_id=self.problem_ids[row.problem],
                    group=row.group,
                    index=row.index,
                    completion=row.text,
                    program=row.program or "",
                    reward=row.reward,
                    verdict=row.verdict,
                    correct=row.correct,
                    speed_percentile=row.speed_percentile,
                    policy_version=row.policy_version,
                    tokens=row.tokens,
                    truncated=row.truncated,
                )
                for row in rows
            )
            TrainingRun.objects.filter(pk=self.training.pk).update(version=step + 1)

    def should_stop(self) -> bool:
        from workers.models import TrainingRun

        return TrainingRun.objects.filter(pk=self.training.pk, stop_requested=True).exists()


def _materialized(test, folder: Path) -> tuple[Path, Path]:
    """A test's files under `folder`, written once per folder (regenerated inputs are costly:
    a scoring worker keeps them for every later step)."""
    from problems.services import materialize_test

    input_path, answer_path = folder / f"test-{test.pk}.in", folder / f"test-{test.pk}.ans"
    if input_path.exists() and answer_path.exists():
        return input_path, answer_path
    return materialize_test(test, folder)


def scoring_problem(item, folder: Path):
    """The ScoringProblem of one loaded problem (rewards.services.LoadedProblem)."""
    from problems.models import ProblemTest
    from workers.execution.checker import CheckerSettings
    from workers.training.scoring import ScoringProblem

    tests = {
        t.pk: t
        for t in ProblemTest.objects.select_related("problem", "generator").filter(
            pk__in=item.test_ids
        )
    }
    problem = tests[item.test_ids[0]].problem
    optimization = [
        Case(tests[pk].name, *_materialized(tests[pk], folder), "optimization")
        for pk in item.test_ids
    ]
    correctness = [
        Case(t.name, *_materialized(t, folder), t.kind)
        for t in problem.tests.filter(kind__in=["sample", "correctness"])
    ]
    finite = item.runtimes.reference_costs[np.isfinite(item.runtimes.reference_costs)]
    slowest = float(finite.max()) if finite.size else problem.time_limit_s
    return problem, ScoringProblem(
        item.slug,
        item.runtimes,
        correctness,
        optimization,
        CheckerSettings(**problem.checker),
        cap_s=max(3 * slowest, 1.0),  # well past the slowest human: slower is timed out
    )


def loaded_problems(split: str, slugs: list[str] | None = None):
    from rewards.services import load_problem_runtimes

    loaded, _ = load_problem_runtimes(slugs, split=split, language="python")
    return [p for p in loaded if p.test_kind == "optimization"]


def training_problems(config, workdir: Path):
    """(TrainingProblem list, warm-start (prompt, program) pairs) from the database: problems
    of the config's split with stored runtimes of Python references on optimization tests;
    their tests written under `workdir` (optimization inputs regenerated and checked)."""
    from problems.models import ReferenceSolution
    from workers.training.loop import TrainingProblem
    from workers.training.rollout import make_prompt

    loaded = loaded_problems("" if config.split == "all" else config.split)
    if config.max_problems:
        loaded = loaded[: config.max_problems]
    problems, examples = [], []
    for item in loaded:
        folder = workdir / item.slug
        folder.mkdir(parents=True, exist_ok=True)
        problem, scoring = scoring_problem(item, folder)
        baseline = None
        if config.baseline_program:
            baseline = slowest_reference(problem, item)
        prompt = make_prompt(problem.statement or problem.title, baseline)
        problems.append(TrainingProblem(item.slug, prompt, scoring))
        for solution in ReferenceSolution.objects.filter(
            problem=problem, language="python", verdict_label="accepted"
        ):
            examples.append((prompt, solution.code))
    return problems, examples


def slowest_reference(problem, item) -> str | None:
    """The code of the accepted Python reference with the largest mean stored time."""
    from problems.models import ReferenceSolution

    costs = np.where(np.isfinite(item.runtimes.reference_costs), item.runtimes.reference_costs, 0)
    means = dict(zip(item.references, costs.mean(axis=1), strict=True))
    accepted = ReferenceSolution.objects.filter(
        problem=problem, language="python", verdict_label="accepted", name__in=list(means)
    )
    slowest = max(accepted, key=lambda s: means[s.name], default=None)
    return slowest.code if slowest else None


_SCORING_FOLDER: Path | None = None


def do_score_rollouts(job_id: int, worker: str = "") -> str:
    """The timing worker's side of scoring: run one step's programs (workers.training.
    scoring.score_group per group) and store the scores on the job for the trainer."""
    import tempfile

    from rewards.engine import RewardConfig
    from workers.models import ScoringJob
    from workers.training.scoring import score_group

    global _SCORING_FOLDER
    if _SCORING_FOLDER is None:  # one per worker process, kept: inputs are reused every step
        _SCORING_FOLDER = Path(tempfile.mkdtemp(prefix="codeopt-scoring-"))
    job = ScoringJob.objects.get(pk=job_id)
    if job.status == ScoringJob.Status.DONE:
        return job.status
    ScoringJob.objects.filter(pk=job.pk).update(status=ScoringJob.Status.RUNNING, worker=worker)
    with failure_recorded(ScoringJob.objects.filter(pk=job.pk)):
        request = job.request
        config = RewardConfig.from_dict(request["reward_config"])
        slugs = sorted({g["problem"] for g in request["groups"]})
        problems = {}
        for item in loaded_problems("", slugs):
            folder = _SCORING_FOLDER / item.slug
            folder.mkdir(exist_ok=True)
            problems[item.slug] = scoring_problem(item, folder)[1]
        result = [
            [
                {
                    "reward": s.reward,
                    "verdict": s.verdict,
                    "correct": s.correct,
                    "speed_percentile": s.speed_percentile,
                    "seconds": s.seconds,
                }
                for s in score_group(
                    group["programs"], problems[group["problem"]], config, step=job.step
                )
            ]
            for group in request["groups"]
        ]
    ScoringJob.objects.filter(pk=job.pk).update(
        status=ScoringJob.Status.DONE, result=result, finished_at=timezone.now()
    )
    return ScoringJob.Status.DONE


class _PolledScores:
    """The trainer's handle on a scoring job: result() waits for the timing worker."""

    def __init__(self, job_id: int, timeout_s: float):
        self.job_id = job_id
        self.timeout_s = timeout_s

    def result(self):
        from workers.models import ScoringJob
        from workers.training.scoring import Score

        deadline = time.monotonic() + self.timeout_s
        while True:
            job = ScoringJob.objects.get(pk=self.job_id)
            if job.status == ScoringJob.Status.DONE:
                return [[Score(costs=[], **score) for score in group] for group in job.result]
            if job.status == ScoringJob.Status.FAILED:
                raise RuntimeError(f"scoring job {job.pk} failed: {job.error}")
            if time.monotonic() > deadline:
                raise TimeoutError(
                    f"scoring job {job.pk} not done after {self.timeout_s:g} s: "
                    "is a worker consuming the `timing` queue?"
                )
            time.sleep(0.1)


class TimingQueueScorer:
    """Scores on the timing workers (queue `timing`): each step's programs go in a ScoringJob
    row, the task fills in the scores, the trainer picks them up when it needs them."""

    def __init__(self, training, reward, timeout_s: float = 3600.0):
        self.training = training
        self.reward = reward
        self.timeout_s = timeout_s

    def submit(self, step: int, batch) -> _PolledScores:
        from workers.models import ScoringJob
        from workers.tasks import score_rollouts

        job = ScoringJob.objects.create(
            training=self.training,
            step=step,
            request={
                "reward_config": self.reward.as_dict(),
                "groups": [
                    {"problem": problem.slug, "programs": [s.program for s in samples]}
                    for problem, samples in batch
                ],
            },
        )
        transaction.on_commit(lambda: score_rollouts.delay(job.pk))
        return _PolledScores(job.pk, self.timeout_s)


# A training run has one trainer at a time. Each delivery of the task takes a lease on the
# TrainingRun row and beats it every LEASE_BEAT_S from a thread; another delivery (a broker
# re-delivering a message whose worker is only slow, two workers on the same queue) waits
# while the beat is younger than LEASE_STALE_S, and takes over once it is older: the first
# trainer died. A trainer that finds its lease taken stops at once, writing nothing more.
LEASE_BEAT_S = 10.0
LEASE_STALE_S = 60.0


class RunBusy(Exception):
    """Another live delivery trains this run; retry after LEASE_STALE_S."""


class LeaseLost(Exception):
    """This delivery's lease was taken over: its trainer must stop writing."""


def claim_training(training_pk: int, worker: str) -> str:
    """Take the run's lease for this delivery; its token. RunBusy when a live one holds it."""
    from workers.models import TrainingRun

    token = f"{worker or 'local'}:{uuid.uuid4().hex[:12]}"
    now = timezone.now()
    with transaction.atomic():
        row = TrainingRun.objects.select_for_update().get(pk=training_pk)
        fresh = row.heartbeat_at and (now - row.heartbeat_at).total_seconds() < LEASE_STALE_S
        if row.lease and fresh:
            raise RunBusy(
                f"run {row.run_id} is trained by {row.lease} (heartbeat "
                f"{(now - row.heartbeat_at).total_seconds():.0f} s ago)"
            )
        TrainingRun.objects.filter(pk=training_pk).update(
            lease=token,
            heartbeat_at=now,
            attempts=F("attempts") + 1,
            worker=worker,
            stage="loading problems",
        )
    return token


class _Lease:
    """Beats the lease from a thread while the trainer works; `lost` once another took it."""

    def __init__(self, training_pk: int, token: str):
        import threading

        self.training_pk = training_pk
        self.token = token
        self.lost = threading.Event()
        self._done = threading.Event()
        self._thread = threading.Thread(target=self._beat, daemon=True, name="training-lease")

    def _beat(self) -> None:
        from django.db import close_old_connections

        from workers.models import TrainingRun

        try:
            while not self._done.wait(LEASE_BEAT_S):
                held = TrainingRun.objects.filter(pk=self.training_pk, lease=self.token).update(
                    heartbeat_at=timezone.now()
                )
                if not held:
                    self.lost.set()
                    return
        finally:
            close_old_connections()

    def __enter__(self) -> _Lease:
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        from workers.models import TrainingRun

        self._done.set()
        self._thread.join()
        # ended here (finished, stopped, failed): the next delivery need not wait
        TrainingRun.objects.filter(pk=self.training_pk, lease=self.token).update(
            lease="", heartbeat_at=None
        )


def do_run_training(run_id: int, worker: str = "") -> str:
    """The task body: train a run to its end, from its newest checkpoint when there is one
    (a re-delivered task after a worker crash resumes there). Returns the run's status."""
    import tempfile

    from rewards.models import RewardConfig
    from runs.models import RunStatus
    from runs.services import do_set_run_status
    from workers.models import TrainingRun
    from workers.training.config import TrainConfig
    from workers.training.loop import LocalScorer, Trainer
    from workers.training.policy import TINY, load_checkpoint, load_policy
    from workers.training.update import warm_start

    training = TrainingRun.objects.select_related("run").get(run_id=run_id)
    run = training.run
    if run.status in (RunStatus.FINISHED, RunStatus.STOPPED):
        return run.status  # delivered again after it ended: nothing to do
    token = claim_training(training.pk, worker)
    do_set_run_status(run, RunStatus.RUNNING)
    config = TrainConfig.from_dict(training.config)
    reward = RewardConfig.objects.get(pk=run.reward_config_id).engine_config()
    checkpoint_dir = Path(training.checkpoint_dir)
    try:
        with (
            _Lease(training.pk, token),
            tempfile.TemporaryDirectory(prefix="codeopt-train-") as folder,
        ):
            problems, examples = training_problems(config, Path(folder))
            if not problems:
                raise ValueError(f"split: no {config.split} problem with stored runtimes")
            latest = sorted(checkpoint_dir.glob("step-[0-9]*[0-9]"))
            if config.model == TINY and latest:  # its tokenizer was trained with it
                model, tokenizer = load_checkpoint(config.model, latest[-1], config.seed)
            else:
                corpus = [text for pair in examples for text in pair]
                model, tokenizer = load_policy(config.model, corpus, seed=config.seed)
            ids = {p.slug: _problem_id(p.slug) for p in problems}
            trainer = Trainer(
                config,
                model,
                tokenizer,
                problems,
                (
                    LocalScorer(reward)
                    if config.scoring == "local"
                    else TimingQueueScorer(training, reward)
                ),
                DatabaseSink(training, ids, lease=token),
                checkpoint_dir,
            )
            if not trainer.resume() and config.model == TINY and config.warm_start_steps:
                TrainingRun.objects.filter(pk=training.pk).update(stage="warm start")
                warm_start(
                    model,
                    tokenizer,
                    examples,
                    steps=config.warm_start_steps,
                    learning_rate=config.warm_start_learning_rate,
                    seed=config.seed,
                )
            TrainingRun.objects.filter(pk=training.pk).update(stage="training")
            version = trainer.run()
    except LeaseLost:
        return "lease lost"  # the delivery that took over owns the run's state now
    except Exception as exc:
        TrainingRun.objects.filter(pk=training.pk).update(
            error=f"{type(exc).__name__}: {exc}", stage="failed"
        )
        do_set_run_status(run, RunStatus.FAILED)
        raise
    done = version >= config.steps or trainer.out_of_time
    status = RunStatus.FINISHED if done else RunStatus.STOPPED
    TrainingRun.objects.filter(pk=training.pk).update(stage=status, version=version)
    do_set_run_status(run, status)
    return status


def _problem_id(slug: str) -> int:
    from problems.models import Problem

    return Problem.objects.only("pk").get(slug=slug).pk
