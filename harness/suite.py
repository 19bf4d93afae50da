"""One `rplharness run`: load scenarios, run every variant, compare all in one Spark job, judge."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

from scenarios import load_paths
from scenarios.model import ScenarioError
from server_sim.flavor import Flavor

from .compare import RunDiff, compare_runs
from .judge import ExpectationResult, Judgement, check_expectations, judge
from .runner import RunRecord, run_variant, validate_settings


@dataclass
class RunOutcome:
    record: RunRecord
    diff: RunDiff | None
    judgement: Judgement
    expectations: list[ExpectationResult]

    @property
    def expectations_held(self) -> bool:
        return all(result.held for result in self.expectations)


@dataclass
class SuiteResult:
    runs: list[RunOutcome] = field(default_factory=list)
    input_errors: list[ScenarioError] = field(default_factory=list)

    @property
    def exit_code(self) -> int:
        """0 when every expectation holds, 1 when one fails, 2 on input errors."""
        if self.input_errors:
            return 2
        return 0 if all(run.expectations_held for run in self.runs) else 1


def run_suite(
    paths: Iterable[Path | str],
    flavor: Flavor,
    out: Path,
    start_spark: Callable[[], object],
    seed: int = 0,
) -> SuiteResult:
    """Run every variant of every scenario under `paths`; a bad scenario is reported and skipped."""
    loaded = load_paths(paths)
    result = SuiteResult(input_errors=list(loaded.errors))
    binlog_dir = out / "binlogs"
    records: list[RunRecord] = []
    for scenario in loaded.scenarios:
        problems = validate_settings(scenario, flavor)
        if problems:
            result.input_errors.extend(problems)
            continue
        for variant in scenario.variants():
            records.append(run_variant(scenario, variant, flavor, binlog_dir, seed))
    pairs = {
        record.run_id: (record.master_snapshot, record.slave_snapshot)
        for record in records
        if record.master_snapshot is not None and record.slave_snapshot is not None
    }
    diffs: dict[str, RunDiff] = {}
    if pairs:
        diffs = compare_runs(start_spark(), pairs, out / "snapshots")
    for record in records:
        diff = diffs.get(record.run_id)
        judgement = judge(record, diff)
        result.runs.append(RunOutcome(record, diff, judgement, check_expectations(record, judgement)))
    return result
