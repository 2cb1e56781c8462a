"""Pin each process of a timing worker to one core (CODEOPT_PIN_CORES=1).

One execution per core at a time, always on the same core: no migration between caches
mid-measurement, and two measurements never share a core. Start timing workers with
`--concurrency` at most the number of cores (docs/operations.md).
"""

from __future__ import annotations

import logging
import os

from celery.signals import worker_process_init

log = logging.getLogger(__name__)


def core_for(index: int, cores: list[int]) -> int:
    return cores[index % len(cores)]


@worker_process_init.connect
def pin_to_core(**kwargs) -> None:
    if os.environ.get("CODEOPT_PIN_CORES") != "1":
        return
    from billiard.process import current_process

    cores = sorted(os.sched_getaffinity(0))
    index = getattr(current_process(), "index", 0) or 0
    core = core_for(index, cores)
    os.sched_setaffinity(0, {core})
    log.info("timing process %s pinned to core %s", index, core)
