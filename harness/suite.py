"""One `rplharness run`: load scenarios, run every variant, compare all in one Spark job, judge."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

from scenarios.loader import load_paths
from scenarios.model import Scenario, ScenarioError, Verdict
from server_sim.flavor import Flavor

from .compare import RunDiff, compare_in_process, compare_runs
from .judge import ErrorCheck, ExpectationResult, check_expectations, covered, error_checks, expectation_errors, judge
from .judgement import Judgement
from .pool import RunTask, VariantRunner, parallel_map
from .runner import RunRecord, validate_scenario
from .spark_backend import SparkRuns, run_on_spark

# Where the runs run: `local`, this machine's process pool; `spark`, Spark tasks on the
# executors of the command's Spark (a cluster with --spark-master), compared there too.
EXECUTORS: tuple[str, ...] = ("local", "spark")
BINLOG_DIR = "binlogs"  # OUT/binlogs: every run's binlog file (and an oracle run's server binlogs)

# Told (runs done, runs in all) before the first run and after each: a progress line's feed.
RunsProgress = Callable[[int, int], None]


@dataclass
class RunOutcome:
    record: RunRecord
    diff: RunDiff | None
    judgement: Judgement
    expectations: list[ExpectationResult]
    error_checks: list[ErrorCheck] = field(default_factory=list)
    # fuzz's rule: a divergence or slave stop a server-given reason explains is what the
    # generator's workloads are made to produce, not a failure.
    explained_allowed: bool = False

    @property
    def expectations_held(self) -> bool:
        return all(result.held for result in self.expectations)

    @property
    def checks_held(self) -> bool:
        """Every matching `expect` entry and every statement's error check held, and the
        simulator did not fail on the run."""
        return self.judgement.verdict is not Verdict.ERROR and self.expectations_held and all(check.held for check in self.error_checks)

    @property
    def covered(self) -> bool:
        """The verdict is consistent, or one a matching `expect` entry asserts (for fuzz,
        any divergence or slave stop the server explains)."""
        if self.explained_allowed and self.judgement.verdict in (Verdict.DIVERGENT, Verdict.SLAVE_STOPPED):
            return True
        return covered(self.judgement, self.expectations)

    @property
    def passed(self) -> bool:
        return self.checks_held and self.covered


@dataclass
class SuiteResult:
    runs: list[RunOutcome] = field(default_factory=list)
    input_errors: list[ScenarioError] = field(default_factory=list)
    # What did not run, a line each (the Spark backend: a chunk's job failed); the report
    # is partial when there is any.
    not_run: list[str] = field(default_factory=list)

    @property
    def exit_code(self) -> int:
        """As pt-table-checksum's: 0 when every run is consistent or as its `expect`
        entries say; 1 when a check failed or a run diverged, stopped its slave, was a
        finding or unsupported with no `expect` entry allowing it, or did not run; 2 on
        input errors or when there was no scenario to run."""
        if self.input_errors or not (self.runs or self.not_run):
            return 2
        return 0 if all(run.passed for run in self.runs) and not self.not_run else 1


def load_runnable(paths: Iterable[Path | str], flavor: Flavor, only_flavor: bool = False) -> tuple[list[Scenario], list[ScenarioError]]:
    """The scenarios under `paths` whose settings the flavor accepts, and the input errors
    of the rest. With `only_flavor` (a real server runs them), a scenario pinned to another
    flavor is an input error."""
    loaded = load_paths(paths)
    scenarios, errors = [], list(loaded.errors)
    for scenario in loaded.scenarios:
        problems = validate_scenario(scenario, flavor) + expectation_errors(scenario)
        if only_flavor and scenario.flavor not in (None, flavor.name):
            problems.append(ScenarioError(scenario.source or Path(scenario.name), "flavor", f"this scenario models {scenario.flavor}; the server here is {flavor.name}"))
        errors.extend(problems)
        if not problems:
            scenarios.append(scenario)
    return scenarios, errors


def judge_records(
    records: list[RunRecord], out: Path, start_spark: Callable[[], object], compare: str = "spark", diffs: dict[str, RunDiff] | None = None
) -> list[RunOutcome]:
    """Compare every run's master and slave in one Spark job (`compare` "spark") or in this
    process ("python", no JVM started), then judge each run. `diffs`: the comparison made
    already, where the runs were made."""
    pairs = {
        record.run_id: (record.master_snapshot, record.slave_snapshot)
        for record in records
        if record.master_snapshot is not None and record.slave_snapshot is not None
    }
    if diffs is None:
        diffs = {}
        if pairs:
            diffs = compare_in_process(pairs) if compare == "python" else compare_runs(start_spark(), pairs, out / "snapshots")
    outcomes = []
    for record in records:
        diff = diffs.get(record.run_id)
        checks = error_checks(record)
        judgement = judge(record, diff, checks)
        outcomes.append(RunOutcome(record, diff, judgement, check_expectations(record, judgement), checks))
    return outcomes


def run_suite(
    paths: Iterable[Path | str],
    flavor: Flavor,
    out: Path,
    start_spark: Callable[[], object],
    seed: int = 0,
    progress: RunsProgress | None = None,
    compare: str = "spark",
    executor: str = "local",
) -> SuiteResult:
    """Run every variant of every scenario under `paths`; a bad scenario is reported and
    skipped. `executor` "spark": the runs and their comparison are Spark's."""
    scenarios, errors = load_runnable(paths, flavor)
    if executor == "spark":
        runs = simulate_on_spark(scenarios, flavor, out, start_spark(), seed, progress)
        return SuiteResult(judge_records(runs.results, out, start_spark, diffs=runs.diffs), errors, runs.missing)  # type: ignore[arg-type]
    return SuiteResult(judge_records(simulate(scenarios, flavor, out, seed, progress=progress), out, start_spark, compare), errors)


def simulate(
    scenarios: list[Scenario],
    flavor: Flavor,
    out: Path,
    seed: int = 0,
    workers: int | None = None,
    progress: RunsProgress | None = None,
) -> list[RunRecord]:
    """Every variant of every scenario through the simulators, on every core; binlogs
    under OUT/binlogs. `progress(done, total)` is told of each run as it comes back."""
    tasks = [RunTask(scenario, variant) for scenario in scenarios for variant in scenario.variants()]
    records: list[RunRecord] = []
    if progress is not None:
        progress(0, len(tasks))
    for record in parallel_map(VariantRunner(flavor, out / BINLOG_DIR, seed), tasks, workers):
        records.append(record)
        if progress is not None:
            progress(len(records), len(tasks))
    return records


def simulate_on_spark(scenarios: list[Scenario], flavor: Flavor, out: Path, spark: object, seed: int = 0, progress: RunsProgress | None = None) -> SparkRuns:
    """simulate() as Spark tasks: the same records and binlogs, and every run compared on
    the executors."""
    tasks = [RunTask(scenario, variant) for scenario in scenarios for variant in scenario.variants()]
    done = [0]

    def advance(_: object) -> None:
        done[0] += 1
        if progress is not None:
            progress(done[0], len(tasks))

    if progress is not None:
        progress(0, len(tasks))
    runner = VariantRunner(flavor, out / BINLOG_DIR, seed)
    return run_on_spark(spark, runner, tasks, lambda task: f"{task.scenario.name} [{task.scenario.variant_label(task.variant)}]", advance)  # type: ignore[arg-type]
