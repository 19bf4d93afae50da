"""--compare python against --compare spark: the same diffs for every run of the bundled
suites, so the fast path judges exactly as the reference does."""

from __future__ import annotations

from pathlib import Path

import pytest

from harness.compare import compare_in_process, compare_runs
from harness.suite import load_runnable, simulate
from server_sim.flavor import MARIADB_1011, MYSQL_80, Flavor
from tests.support import ROOT



def _files(suite: str, every: int) -> list[Path]:
    """Every `every`-th scenario file of a suite (the recorded suite is large: half of it
    gives the comparison enough runs, divergent ones among them)."""
    return sorted((ROOT / "scenarios" / suite).glob("*.yaml"))[::every]


@pytest.mark.parametrize(("suite", "flavor", "every"), [("suites", MYSQL_80, 1), ("oracle", MARIADB_1011, 2)])
def test_python_and_spark_give_every_bundled_run_the_same_diff(spark, tmp_path: Path, suite: str, flavor: Flavor, every: int) -> None:
    scenarios, errors = load_runnable(_files(suite, every), flavor)
    assert errors == []
    records = simulate(scenarios, flavor, tmp_path)
    pairs = {r.run_id: (r.master_snapshot, r.slave_snapshot) for r in records if r.master_snapshot is not None and r.slave_snapshot is not None}
    assert len(pairs) == len(records) > 100

    by_spark = compare_runs(spark, pairs, tmp_path / "snapshots")
    by_python = compare_in_process(pairs)

    assert by_python.keys() == by_spark.keys() == pairs.keys()
    differing = [run_id for run_id in pairs if by_python[run_id] != by_spark[run_id]]
    assert differing == []
    assert sum(not diff.consistent for diff in by_spark.values()) > 10  # the suites do diverge
