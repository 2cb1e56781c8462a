"""scripts/cluster.py's own bookkeeping, without starting a cluster: counts out of range are
refused before anything is made, and a temporary folder of logs goes with the cluster unless
it stopped on an error."""

from __future__ import annotations

import pytest

from scripts import cluster as harness


@pytest.mark.parametrize(
    ("argv", "named"),
    [
        (["up", "--training-hosts", "9"], "--training-hosts"),
        (["up", "--training-hosts", "-1"], "--training-hosts"),
        (["up", "--timing-hosts", "0"], "--timing-hosts"),
        (["up", "--web", "0"], "--web"),
    ],
)
def test_a_count_out_of_range_is_a_usage_error_naming_it(argv, named, capsys):
    with pytest.raises(SystemExit) as ended:
        harness.main(argv)
    assert ended.value.code == 2
    message = capsys.readouterr().err
    assert named in message and "usage:" in message


def test_the_temporary_folder_goes_with_the_cluster_and_stays_after_an_error():
    # never started (no process, database or Redis key): leaving the `with` block is what
    # the harness does at the end of a test or benchmark
    clean = harness.Cluster(timing_hosts=1, web=1)
    assert clean.folder.is_dir() and clean.folder.name.startswith("codeopt-cluster-")
    (clean.folder / "web-0").mkdir()
    (clean.folder / "web-0" / "daphne.log").write_text("started\n")
    clean.__exit__(None, None, None)
    assert not clean.folder.exists()

    failed = harness.Cluster(timing_hosts=1, web=1)
    error = RuntimeError("a test failed inside the cluster")
    failed.__exit__(RuntimeError, error, None)
    assert failed.folder.is_dir()  # its logs kept for reading
    failed.folder.rmdir()


def test_a_folder_the_caller_gave_stays(tmp_path):
    (tmp_path / "logs").mkdir()
    given = harness.Cluster(timing_hosts=1, web=1, folder=tmp_path / "logs")
    given.stop()
    assert (tmp_path / "logs").is_dir()


def _busy_share():
    """benchmarks/cluster_scale.py's busy_share (the benchmarks import their helpers by
    their folder, as a script does)."""
    import importlib.util
    import sys
    from pathlib import Path

    folder = Path(__file__).resolve().parents[2] / "benchmarks"
    sys.path.insert(0, str(folder))
    try:
        spec = importlib.util.spec_from_file_location("cluster_scale", folder / "cluster_scale.py")
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
    finally:
        sys.path.remove(str(folder))
    return module.busy_share


def test_busy_share_is_the_covered_fraction_of_a_fine_grid():
    """The share of a window a host was busy (the union of its scoring intervals, overlaps
    counted once, cut at the window) against counting covered points of a 1 ms grid."""
    import numpy as np

    busy_share = _busy_share()
    rng = np.random.default_rng(5)
    grid = np.arange(0.0005, 10.0, 0.001)  # cell midpoints of [0, 10] s
    for _ in range(200):
        n = int(rng.integers(0, 8))
        starts, lengths = rng.uniform(-2, 11, n).round(3), rng.uniform(0, 4, n).round(3)
        intervals = [(float(a), float(a + d)) for a, d in zip(starts, lengths, strict=True)]
        covered = np.zeros_like(grid, dtype=bool)
        for a, b in intervals:
            covered |= (grid > a) & (grid < b)
        assert busy_share(intervals, 0.0, 10.0) == pytest.approx(covered.mean(), abs=1e-9)
    assert busy_share([(1, 3), (2, 4), (2.5, 2.6)], 0, 10) == pytest.approx(0.3)
    assert busy_share([], 5, 5) == 1.0  # an empty window: nothing idle
