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
from .runner import RunRecord, run_id_for, validate_scenario
from .snapshot import ServerSnapshot
from .spark_backend import SparkRuns, run_on_spark, spark_compare

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
    comparison_failed: bool = False  # its tables were never compared: its verdict is error

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
    def partial(self) -> str | None:
        """Why the report is partial (runs whose tables were never compared), or None."""
        failed = [run for run in self.runs if run.comparison_failed]
        if not failed:
            return None
        return f"{len(failed)} of {len(self.runs)} runs were not compared: {failed[0].judgement.explanation[0]}"

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
    return _distinct_run_ids(scenarios, errors)


def _distinct_run_ids(scenarios: list[Scenario], errors: list[ScenarioError]) -> tuple[list[Scenario], list[ScenarioError]]:
    """The scenarios whose runs' ids (their binlog and report names) no earlier scenario's
    run has, and an input error naming both scenarios for each one that collides (`x/y` and
    `x_y` both give `x_y__...`): two runs must never share a binlog or a verdict."""
    owners: dict[str, Scenario] = {}
    kept: list[Scenario] = []
    for scenario in scenarios:
        mine: set[str] = set()
        problem = None
        for variant in scenario.variants():
            run_id = run_id_for(scenario, scenario.variant_label(variant))
            if run_id in mine:
                problem = f"run id {run_id!r} is that of two of its variants: their matrix values differ only in characters a run id replaces"
            elif run_id in owners:
                problem = f"run id {run_id!r} is already that of scenario {owners[run_id].name!r} ({owners[run_id].source}): rename one of them"
            if problem is not None:
                break
            mine.add(run_id)
        if problem is not None:
            errors.append(ScenarioError(scenario.source or Path(scenario.name), "name", problem))
            continue
        owners.update(dict.fromkeys(mine, scenario))
        kept.append(scenario)
    return kept, errors


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
    failure = None
    if diffs is None:
        diffs, failure = _compare(pairs, out, start_spark, compare) if pairs else ({}, None)
    outcomes = []
    for record in records:
        diff = diffs.get(record.run_id)
        checks = error_checks(record)
        uncompared = failure if record.run_id in pairs and diff is None else None
        judgement = Judgement(Verdict.ERROR, (uncompared,)) if uncompared else judge(record, diff, checks)
        outcomes.append(RunOutcome(record, diff, judgement, check_expectations(record, judgement), checks, comparison_failed=uncompared is not None))
    return outcomes


def _compare(pairs: dict[str, tuple[ServerSnapshot, ServerSnapshot]], out: Path, start_spark: Callable[[], object], compare: str) -> tuple[dict[str, RunDiff], str | None]:
    """Every run's diff, or none and why the Spark job failed: a JVM out of heap or gone
    must not lose the runs already made, which are then reported without a comparison."""
    if compare == "python":
        return compare_in_process(pairs), None
    spark = start_spark()
    try:
        return compare_runs(spark, pairs, out / "snapshots"), None
    except Exception as error:  # noqa: BLE001 - whatever the JVM raised, the report is still written
        first_line = next(iter(str(error).strip().splitlines()), "no message")
        return {}, f"the comparison of master and slave failed ({type(error).__name__}: {first_line})"


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
        runs = simulate_on_spark(scenarios, flavor, out, start_spark(), seed, progress, compare)
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


def simulate_on_spark(
    scenarios: list[Scenario], flavor: Flavor, out: Path, spark: object, seed: int = 0, progress: RunsProgress | None = None, compare: str = "spark"
) -> SparkRuns:
    """simulate() as Spark tasks: the same records and binlogs, and every run compared on
    the executors (`compare` "python": in the task that ran it)."""
    tasks = [RunTask(scenario, variant) for scenario in scenarios for variant in scenario.variants()]
    done = [0]

    def advance(_: object) -> None:
        done[0] += 1
        if progress is not None:
            progress(done[0], len(tasks))

    if progress is not None:
        progress(0, len(tasks))
    runner = VariantRunner(flavor, out / BINLOG_DIR, seed)
    describe = lambda task: f"{task.scenario.name} [{task.scenario.variant_label(task.variant)}]"  # noqa: E731
    return run_on_spark(spark, runner, tasks, describe, advance, compare=spark_compare(compare))  # type: ignore[arg-type]
