"""The only place that changes the problem set, by domain: imports (packages, code_contests),
builds (the construction pipeline), references (stored runtimes, drift calibration). Callers
use `problems.services`; the modules keep each part under ~300 lines."""

from __future__ import annotations

from problems.services.builds import (
    check_build_request,
    do_create_build,
    do_run_build,
    do_store_outcome,
    source_problem,
)
from problems.services.imports import (
    IMPORTERS,
    ImportReport,
    do_import_code_contests,
    do_import_packages,
    do_store_problem,
)
from problems.services.references import (
    corrected_reference_costs,
    do_calibrate,
    latest_calibration,
    materialize_test,
    rank_against_stored,
    stored_references,
)

__all__ = [
    "ImportReport",
    "do_store_problem",
    "do_import_packages",
    "do_import_code_contests",
    "IMPORTERS",
    "check_build_request",
    "do_create_build",
    "source_problem",
    "do_store_outcome",
    "do_run_build",
    "materialize_test",
    "latest_calibration",
    "corrected_reference_costs",
    "stored_references",
    "rank_against_stored",
    "do_calibrate",
]
