"""Training runs, the Django shell of the engine (training.loop): check a request,
start a run, build its problems from the database, train it under its lease."""

from __future__ import annotations

import dataclasses
import logging
import tempfile
import uuid
from pathlib import Path

from django.conf import settings
from django.db import transaction

from foundation import inputs
from foundation.sending import enqueue
from lm.base_models import TINY, prompt_style
from problems.loading import function_task, problem_id, slowest_reference
from problems.models import ReferenceSolution
from rewards.models import RewardConfig
from rewards.runtimes import loaded_problems
from runs.models import Run, RunStatus
from runs.services import do_create_run, do_drop_metrics_from, do_set_run_status
from scoring.coordinator import TimingQueueScorer
from scoring.problems import scoring_problem
from training.config import DEGRADED_TIMING_TAG, TrainConfig
from training.lease import Lease, LeaseLost, claim_training
from training.model_choice import check_model
from training.models import RolloutSample, TrainingRun
from training.sink import DatabaseSink, StageProgress, notify_training_progress

log = logging.getLogger(__name__)


def check_train_request(config_data: dict):
    """(TrainConfig, RewardConfig row) for a request; ValueError naming the field at fault,
    before anything is created. A model folder is given as its real path (check_model)."""
    config = TrainConfig.from_dict(config_data)
    reward = RewardConfig.objects.filter(name=config.reward_config).first()
    if reward is None:
        name = config.reward_config
        raise inputs.InputError("reward_config", f"no stored configuration {name!r}")
    # the real path is stored: the worker loads the folder that was checked
    config = dataclasses.replace(config, model=check_model(config.model))
    found = loaded_problems(
        "" if config.split == "all" else config.split, list(config.problems) or None
    )
    if config.problems:
        missing = sorted(set(config.problems) - {p.slug for p in found})
        if missing:
            raise inputs.InputError(
                "problems",
                f"{', '.join(missing)[:200]}: not a built problem of the "
                f"{config.split} split (stored runtimes of Python references); run a "
                "dataset build, or pick another split",
            )
    if not found:
        raise inputs.InputError(
            "split",
            f"no {config.split} problem has stored runtimes of Python references on "
            "optimization tests; run a dataset build",
        )
    return config, reward


def do_start_training(*, owner, team, name: str, config, reward, queue: bool = True) -> Run:
    """A Run (status queued, the config stored verbatim, its reward configuration) and its
    TrainingRun; with `queue`, the task goes to the `gpu` queue once committed. A run whose
    timing is degraded on purpose (config.degraded_timing) is tagged DEGRADED_TIMING_TAG."""
    with transaction.atomic():
        run = do_create_run(
            owner=owner,
            team=team,
            name=name,
            config=config.as_dict(),
            model_name=config.model,
            reward_config=reward,
            tags=["training", *([DEGRADED_TIMING_TAG] if config.degraded_timing().active else [])],
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
            enqueue("training.train", run.pk)
    return run


def checkpoint_steps(training) -> dict[int, Path]:
    """{step: folder} of a training run's checkpoints on this machine (the starting point,
    step 0, and the newest ones: training.loop)."""
    folder = Path(training.checkpoint_dir)
    return {int(p.name.split("-")[1]): p for p in folder.glob("step-[0-9]*[0-9]")}


def do_request_stop(run: Run) -> None:
    """The run finishes its current step, writes a checkpoint and stops."""
    TrainingRun.objects.filter(run=run).update(stop_requested=True)


class WrongState(Exception):
    """The run's state does not allow what was asked (the API's 409); the message says why."""


def check_stoppable(run: Run) -> None:
    """WrongState unless the run trains here and is still queued or running (when the run
    page shows its stop button)."""
    if run.training.external:
        raise WrongState(f"run {run.pk} is trained elsewhere: stop it where it trains")
    if run.status not in (RunStatus.QUEUED, RunStatus.RUNNING):
        raise WrongState(f"run {run.pk} has already ended ({run.status})")


RESUMABLE = (RunStatus.STOPPED, RunStatus.FAILED)


def do_resume_training(run: Run) -> Run:
    """Queue a stopped or failed run again: its task resumes from the newest checkpoint
    (do_run_training, Trainer.resume) and drops what the ended attempt logged past it.

    1. Lock the run's row: two resumes at once queue it once.
    2. WrongState, saying why, unless it trains here, is stopped or failed, and has a
       checkpoint (checkpoint_steps).
    3. Clear the stop flag, the error and the ended stage's progress; the run is queued
       again, its end cleared.
    4. Send `training.train` once committed, as do_start_training does."""
    with transaction.atomic():
        run = Run.objects.select_for_update().get(pk=run.pk)
        training = TrainingRun.objects.get(run=run)
        if training.external:  # no checkpoint and no task of ours
            raise WrongState(f"run {run.pk} is trained elsewhere: resume it where it trains")
        if run.status not in RESUMABLE:
            why = "it has finished" if run.status == RunStatus.FINISHED else f"it is {run.status}"
            raise WrongState(f"run {run.pk} cannot resume: {why}; a stopped or failed one can")
        steps = checkpoint_steps(training)
        if not steps:
            raise WrongState(f"run {run.pk} has no checkpoint to resume from: start a new run")
        TrainingRun.objects.filter(pk=training.pk).update(
            stop_requested=False,
            error="",
            stage=f"queued to resume from step {max(steps)}",
            progress_done=0,
            progress_total=0,
            progress_share=None,
            stage_ends_at=None,
        )
        run.finished_at = None
        do_set_run_status(run, RunStatus.QUEUED)
        notify_training_progress(training.pk)
        enqueue("training.train", run.pk)
    return run


def training_problems(config, workdir: Path, progress: StageProgress | None = None):
    """(TrainingProblem list, warm-start (prompt, program) pairs) from the database: problems
    of the config's split with stored runtimes of Python references on optimization tests;
    their tests written under `workdir` (optimization inputs regenerated and checked), each
    problem counted on `progress`."""

    # torch: loaded where a run trains, not in every process that imports this module
    from training.loop import TrainingProblem
    from training.rollout import make_prompt

    loaded = loaded_problems(
        "" if config.split == "all" else config.split, list(config.problems) or None
    )
    if config.max_problems:
        loaded = loaded[: config.max_problems]
    problems, examples = [], []
    if progress is not None:
        progress.stage("loading problems", total=len(loaded))
    for item in loaded:
        folder = workdir / item.slug
        folder.mkdir(parents=True, exist_ok=True)
        problem, scoring = scoring_problem(item, folder)
        baseline = None
        if config.baseline_program:
            baseline = slowest_reference(problem, item)
        task = function_task(problem)
        prompt = make_prompt(
            problem.statement or problem.title,
            baseline,
            style=prompt_style(config.model),
            function=task,
        )
        problems.append(TrainingProblem(item.slug, prompt, scoring, task.harness if task else ""))
        # the warm start's targets: the human references, whole programs; a problem posed
        # as a function asks for the function alone, so its references would teach the
        # wrong answer's shape (the harness then reads an input they already read)
        references = ReferenceSolution.objects.filter(
            problem=problem, language="python", verdict_label="accepted"
        )
        examples += [] if task else [(prompt, solution.code) for solution in references]
        if progress is not None:
            progress.advance(len(problems))
    return problems, examples


def forget_after_checkpoint(training: TrainingRun, version: int) -> None:
    """A delivery that resumes at `version` (its newest checkpoint) re-runs the steps after
    it (reported at steps version + 1 on: training.loop): what an earlier attempt logged or
    stored for them (metric points, rollout samples) goes, so that no series keeps a point of
    the killed attempt that the resumed one does not write again."""
    dropped = do_drop_metrics_from(training.run_id, version + 1)
    samples, _ = RolloutSample.objects.filter(training=training, step__gt=version).delete()
    if dropped or samples:
        log.info(
            "run %s resumed at step %s: %s points and %s samples of the earlier attempt dropped",
            training.run_id,
            version,
            dropped,
            samples,
        )


def do_run_training(run_id: int, worker: str = "", on_progress=None) -> str:
    """The task body: train a run to its end, from its newest checkpoint when there is one
    (a re-delivered task after a worker crash resumes there). Each stage (loading problems,
    building the policy, warm start, training) is reported with its progress and estimated
    end on the TrainingRun row (sink.StageProgress), and to `on_progress(done, total,
    stage)` when given. Returns the run's status."""
    # torch: loaded where a run trains, not in every process that imports this module
    from training.config import TrainConfig
    from training.loop import LocalScorer, Trainer
    from training.policy import load_checkpoint, load_policy
    from training.update import warm_start

    training = TrainingRun.objects.select_related("run").get(run_id=run_id)
    run = training.run
    if run.status in (RunStatus.FINISHED, RunStatus.STOPPED):
        return run.status  # delivered again after it ended: nothing to do
    token = claim_training(training.pk, worker)
    notify_training_progress(training.pk)
    do_set_run_status(run, RunStatus.RUNNING)
    config = TrainConfig.from_dict(training.config)
    reward = RewardConfig.objects.get(pk=run.reward_config_id).engine_config()
    checkpoint_dir = Path(training.checkpoint_dir)
    progress = StageProgress(training.pk, lease=token, on_progress=on_progress)
    try:
        with (
            Lease(training.pk, token),
            tempfile.TemporaryDirectory(prefix="codeopt-train-") as folder,
        ):
            problems, examples = training_problems(config, Path(folder), progress)
            if not problems:
                raise inputs.InputError("split", f"no {config.split} problem with stored runtimes")
            progress.stage("building the policy")
            latest = sorted(checkpoint_dir.glob("step-[0-9]*[0-9]"))
            if config.model == TINY and latest:  # its tokenizer was trained with it
                model, tokenizer = load_checkpoint(config.model, latest[-1], config.seed)
            else:
                corpus = [text for pair in examples for text in pair]
                model, tokenizer = load_policy(
                    config.model, corpus, seed=config.seed, cache_root=settings.CODEOPT_MODEL_CACHE
                )
            ids = {p.slug: problem_id(p.slug) for p in problems}
            trainer = Trainer(
                config,
                model,
                tokenizer,
                problems,
                (
                    LocalScorer(reward, degraded=config.degraded_timing())
                    if config.scoring == "local"
                    else TimingQueueScorer(training, reward, degraded=config.degraded_timing())
                ),
                DatabaseSink(training, ids, lease=token),
                checkpoint_dir,
            )
            resumed = trainer.resume()
            if TrainingRun.objects.get(pk=training.pk).attempts > 1:
                forget_after_checkpoint(training, trainer.version)
            if not resumed and config.model == TINY and config.warm_start_steps:
                progress.stage("warm start", total=config.warm_start_steps)
                warm_start(
                    model,
                    tokenizer,
                    examples,
                    steps=config.warm_start_steps,
                    learning_rate=config.warm_start_learning_rate,
                    seed=config.seed,
                    on_step=lambda done, _: progress.advance(done),
                )
            budget = f" (time budget {config.max_minutes:g} min)" if config.max_minutes else ""
            progress.stage(
                "training" + budget,
                total=config.steps,
                done=trainer.version,
                deadline_s=60 * config.max_minutes if config.max_minutes else None,
            )
            version = trainer.run(on_step=progress.advance)
    except LeaseLost:
        return "lease lost"  # the delivery that took over owns the run's state now
    except Exception as exc:
        TrainingRun.objects.filter(pk=training.pk).update(
            error=f"{type(exc).__name__}: {exc}",
            stage="failed",
            stage_ends_at=None,
            progress_share=None,
        )
        notify_training_progress(training.pk)
        do_set_run_status(run, RunStatus.FAILED)
        raise
    done = version >= config.steps or trainer.out_of_time
    status = RunStatus.FINISHED if done else RunStatus.STOPPED
    TrainingRun.objects.filter(pk=training.pk).update(
        stage=status, version=version, stage_ends_at=None, progress_share=None
    )
    notify_training_progress(training.pk)
    do_set_run_status(run, status)
    return status
