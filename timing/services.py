"""Timing jobs (measure, jitter, rank check) and the noise-by-mode diagnostic's results: the
only place that changes their rows."""

from __future__ import annotations

from pathlib import Path

from django.conf import settings

from execution.engine import LANGUAGES, MAX_SOURCE_BYTES, MODES
from execution.package import PackageError, load_package
from execution.report import jitter_package, measure_package
from foundation.jobs import SANDBOX_FAILURE_PREFIX, Progress, claim, fail, finish
from foundation.paths import resolve_under_roots, roots_text
from foundation.sending import enqueue
from problems.models import Problem
from timing import rank_checks
from timing.models import ModeNoiseCheck, TimingJob


def check_package_dir(package_dir: str) -> Path:
    """The package folder a job names: a problem slug (the folder that problem was imported
    from) or a path under settings.CODEOPT_PACKAGE_ROOTS (its real path, which the job
    stores). ValueError("package_dir: ...") otherwise: one fixed message for every path
    outside the roots, whether or not it exists (queries: one, for a slug)."""
    name = package_dir.strip()
    roots = settings.CODEOPT_PACKAGE_ROOTS
    if name and "/" not in name:
        folder = _imported_folder(name)
    else:
        folder = resolve_under_roots(name, roots)
    if folder is None:
        raise ValueError(f"package_dir: must be a problem slug or a path under {roots_text(roots)}")
    try:
        load_package(folder)
    except PackageError as exc:
        raise ValueError(f"package_dir: {exc}") from None
    return folder


def _imported_folder(slug: str) -> Path | None:
    """The folder problem `slug` was imported from (an operator named it: it need not be under
    a root); None when no problem has that slug."""
    origin = Problem.objects.filter(slug=slug).values_list("origin", flat=True).first()
    if origin is None:
        return None
    if not origin or "#" in origin:  # a record of a file (code_contests), not a package
        raise ValueError(f"package_dir: problem {slug!r} was not imported from a package folder")
    return Path(origin)


def check_timing_job(
    *,
    package_dir: str,
    source: str,
    language: str,
    modes: list[str],
    repeats: int,
    remeasure: int,
    kind: str,
    problem: str = "",
    reward_config: str = "",
) -> Path | None:
    """ValueError("field: reason") for the first bad field; the package folder to store
    (check_package_dir), None for a rank check."""
    if kind not in TimingJob.Kind.values:
        raise ValueError(f"kind: must be one of {', '.join(TimingJob.Kind.values)}")
    if kind == TimingJob.Kind.RANK_CHECK:
        rank_checks.check_rank_check(problem, reward_config, remeasure)
        return None
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
    return check_package_dir(package_dir)


def do_submit_timing_job(owner, **fields) -> TimingJob:
    """Validate, store, and queue the job on `timing` once the row is committed."""
    modes = [m.strip() for m in fields.pop("modes").split(",") if m.strip()]
    package = check_timing_job(modes=modes, **fields)
    if package is not None:
        fields["package_dir"] = str(package)
    job = TimingJob.objects.create(owner=owner, modes=",".join(modes), **fields)
    enqueue("timing.run_timing_job", str(job.id))
    return job


def do_run_timing_job(job_id: str, worker: str) -> str:
    """Run a queued job to the end and store its result; returns its final status."""
    job = claim(TimingJob, job_id, worker)
    if job is None:  # delivered again after it ended
        return "skipped"
    tracker = Progress(job)

    def progress(done: int, total: int, label: str) -> None:
        tracker.set(done, total)

    options = dict(
        repeats=job.repeats,
        reference_folders=tuple(f for f in job.reference_folders.split(",") if f),
        on_progress=progress,
    )
    try:
        if job.kind == TimingJob.Kind.RANK_CHECK:
            result = rank_checks.rank_check_result(job, progress)
        elif job.kind == TimingJob.Kind.JITTER:
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
        return fail(job, f"{type(exc).__name__}: {exc}")
    sandbox = result["sandbox"]
    if sandbox["unmeasured"]:  # no verdict is not a verdict: the job can be retried
        error = f"{SANDBOX_FAILURE_PREFIX} no verdict for {', '.join(sandbox['unmeasured'])}"
        return fail(job, f"{error}: {sandbox['last_error']}", result=result)
    return finish(job, result=result)


def retry_timing_job(job: TimingJob) -> int:
    queued = TimingJob.objects.filter(pk=job.pk, status=TimingJob.Status.FAILED).update(
        status=TimingJob.Status.QUEUED,
        error="",
        result=None,
        finished_at=None,
        started_at=None,
        progress_done=0,
    )
    enqueue("timing.run_timing_job", str(job.pk))
    return queued


def do_record_mode_noise(result: dict, *, hostname: str, quick: bool) -> ModeNoiseCheck:
    """Store one run of the noise-by-mode diagnostic (ModeNoise.as_dict()); the Timing page
    charts the newest."""
    return ModeNoiseCheck.objects.create(
        hostname=hostname[:255], quick=quick, seconds=result["seconds"], result=result
    )
