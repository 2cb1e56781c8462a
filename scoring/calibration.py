"""Per-host calibration: each timing worker measures the anchor programs
(execution/anchors.py) when it starts and every CODEOPT_ANCHOR_INTERVAL_S (sooner after an
unstable one: RETRY_S), and stores its factor (HostCalibration); scoring against stored
references divides a candidate's costs by it (scoring/scorer.score_group). A host whose factor
is stale or unstable refuses scoring work (`host_fitness`; scoring/coordinator.py hands the job
back to the queue).

The baseline is the anchors of the newest dataset build that measured them (where and when
the stored references were measured); without one, the first calibration recorded.
"""

from __future__ import annotations

import logging
import threading
from dataclasses import dataclass

from django.conf import settings
from django.db import close_old_connections
from django.utils import timezone

from execution.anchors import host_factor, measure_anchors, unfit_reason
from problems.models import DatasetBuild
from scoring.models import HostCalibration

log = logging.getLogger(__name__)
CALIBRATIONS_KEPT = 50
"""Rows kept per host, the newest (the Timing page shows the newest only); the first row
ever recorded is kept too: it is the baseline while no dataset build has anchor costs."""
CALIBRATED_QUEUE = "timing"
"""Workers consuming this queue calibrate (they score against stored references)."""

RETRY_S = 30.0
"""Seconds until a calibration that came out unstable, or failed, is measured again (not the
whole interval: a burst of load that made the anchors disagree left the host refusing every
scoring job, and the training runs waiting on them, for ten minutes)."""


def baseline() -> tuple[dict[str, float], str] | None:
    """(anchor costs, where from) of the baseline, or None when nothing was measured yet."""
    build = DatasetBuild.objects.exclude(anchor_costs={}).order_by("-created_at", "-pk").first()
    if build is not None:
        return build.anchor_costs, f"dataset build {build.pk}"
    first = HostCalibration.objects.order_by("measured_at", "pk").first()
    if first is not None:
        return first.anchor_costs, f"first calibration ({first.hostname})"
    return None


def do_calibrate_host(hostname: str, costs: dict[str, float] | None = None) -> HostCalibration:
    """Measure the anchors here (unless `costs` are given) and store the host's factor
    against the baseline (the first calibration recorded is its own baseline: factor 1)."""
    costs = costs if costs is not None else measure_anchors()
    base = baseline() or (costs, "this calibration (the first recorded)")
    fit = host_factor(costs, base[0])
    row = HostCalibration.objects.create(
        hostname=hostname,
        anchor_costs=costs,
        factor=fit.factor,
        spread=fit.spread,
        baseline=base[1][:200],
    )
    log.info("calibrated %s: factor %.3f, spread %.3f", hostname, fit.factor, fit.spread)
    _prune(hostname)
    return row


def _prune(hostname: str) -> None:
    first = HostCalibration.objects.order_by("measured_at", "pk").values_list("pk", flat=True)
    mine = HostCalibration.objects.filter(hostname=hostname).order_by("-measured_at", "-pk")
    old = list(mine.values_list("pk", flat=True)[CALIBRATIONS_KEPT:])
    if old:
        HostCalibration.objects.filter(pk__in=old).exclude(pk=first.first()).delete()


def enabled() -> bool:
    """Calibration is on unless CODEOPT_ANCHOR_INTERVAL_S is 0: the one place that decides."""
    return settings.CODEOPT_ANCHOR_INTERVAL_S > 0


def stale_after_s() -> float:
    return 2.0 * settings.CODEOPT_ANCHOR_INTERVAL_S


def max_spread() -> float:
    return 1.0 + settings.CODEOPT_ANCHOR_MAX_SPREAD_PCT / 100.0


@dataclass(frozen=True)
class Fitness:
    factor: float  # what scoring against stored references divides costs by
    reason: str  # why the host refuses scoring work; "" when it takes it
    calibrated: bool  # a calibration exists (factor 1.0 otherwise)


def applied(factor: float) -> float:
    """`factor` as scoring applies it: 1.0 within CODEOPT_ANCHOR_MIN_SHIFT_PCT of 1 (the
    anchors' own noise on one host), else the factor."""
    shift = 1.0 + settings.CODEOPT_ANCHOR_MIN_SHIFT_PCT / 100.0
    return factor if max(factor, 1.0 / factor) > shift else 1.0


def host_fitness(hostname: str, now=None) -> Fitness:
    """The newest calibration of `hostname` as scoring uses it. A host never calibrated
    (a foreground scorer that is no worker) scores with factor 1.0, and so does every host
    while calibration is off (CODEOPT_ANCHOR_INTERVAL_S=0): rows from before it was turned off
    are neither applied nor stale (their age against a limit of 0 s refused every job)."""
    if not enabled():
        return Fitness(1.0, "", False)
    row = HostCalibration.objects.filter(hostname=hostname).order_by("-measured_at").first()
    if row is None:
        return Fitness(1.0, "", False)
    return Fitness(applied(row.factor), _reason(row, now or timezone.now()), True)


def _reason(row: HostCalibration, now) -> str:
    age = (now - row.measured_at).total_seconds()
    return unfit_reason(
        row.factor, row.spread, age, stale_after_s=stale_after_s(), max_spread=max_spread()
    )


def host_rows(now=None) -> list[dict]:
    """The newest calibration per host, as the Timing page and /healthz show it."""
    now = now or timezone.now()
    newest: dict[str, HostCalibration] = {}
    for row in HostCalibration.objects.order_by("hostname", "-measured_at"):
        newest.setdefault(row.hostname, row)
    return [
        {
            "hostname": row.hostname,
            "factor": round(row.factor, 4),
            "applied_factor": round(applied(row.factor), 4),
            "spread": round(row.spread, 4),
            "age_s": round((now - row.measured_at).total_seconds(), 1),
            "measured_at": row.measured_at.isoformat(),
            "baseline": row.baseline,
            "refuses_scoring": _reason(row, now) if enabled() else "",
        }
        for row in newest.values()
    ]


def describe() -> dict:
    """Settings and per-host figures, for /healthz (signed in) and the Timing page."""
    return {
        "ok": True,
        "interval_s": settings.CODEOPT_ANCHOR_INTERVAL_S,  # 0: calibration off
        "retry_s": min(settings.CODEOPT_ANCHOR_INTERVAL_S, RETRY_S),
        "min_shift_pct": settings.CODEOPT_ANCHOR_MIN_SHIFT_PCT,
        "stale_after_s": stale_after_s(),
        "max_spread": max_spread(),
        "hosts": host_rows(),
    }


_stop = threading.Event()


def _loop(hostname: str, interval_s: float) -> None:
    while not _stop.is_set():
        wait_s = min(interval_s, RETRY_S)
        try:
            if do_calibrate_host(hostname).spread <= max_spread():
                wait_s = interval_s
        except Exception:  # a failed calibration shows as a stale factor; the next one retries
            log.exception("calibration of %s failed", hostname)
        finally:
            close_old_connections()
        _stop.wait(wait_s)


def start_calibrating(hostname: str, queues: list[str]) -> threading.Thread | None:
    """Calibrate `hostname` now and every CODEOPT_ANCHOR_INTERVAL_S in a thread of the worker
    (only a worker of the `timing` queue, and only with an interval set); again after RETRY_S
    when a calibration came out unstable or failed."""
    interval = settings.CODEOPT_ANCHOR_INTERVAL_S
    if CALIBRATED_QUEUE not in queues or not enabled():
        return None
    _stop.clear()
    thread = threading.Thread(target=_loop, args=(hostname, interval), daemon=True)
    thread.start()
    return thread


def stop_calibrating() -> None:
    _stop.set()
