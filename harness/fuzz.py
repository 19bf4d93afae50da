"""`rplharness fuzz`: generated workloads, their interleavings, every run judged, findings shrunk.

The generator makes workloads from `(seed, index)`; each worker generates its
workloads, explores their interleavings and runs each under its variants, so
generation is spread over the cores too. One Spark job then compares every run's
master and slave, and the checker judges them. A finding, a divergence no reason the
server gives explains, is shrunk to a minimal scenario and saved as a scenario file and
as a mysqltest file.
"""

from __future__ import annotations

import hashlib
import json
import random
import traceback
from collections.abc import Callable, Iterator
from dataclasses import asdict, dataclass, field, replace
from functools import cached_property
from pathlib import Path

from master_sim.results import StepResult
from scenarios.generator.config import GeneratorConfig
from scenarios.generator.sessions import generate_workload
from scenarios.interleavings import explore
from scenarios.loader import load_scenario
from scenarios.model import BINLOG_FORMATS, Expectation, Scenario, Step, Verdict
from scenarios.writer import write_scenario
from server_sim.flavor import Flavor

from .compare import RunDiff, diff_snapshots
from .findings import Signature, causing_step, signature
from .judge import judge
from .judgement import Judgement
from .mysqltest import write_mysqltest
from .pool import parallel_map
from .prestart import Prestart
from .progress import Progress
from .runner import RunRecord, run_variant
from .shrink import shrink
from .shrink.core import PassStats
from .snapshot import ServerSnapshot, canonical
from .spark_backend import run_on_spark, spark_compare
from .suite import RunOutcome, SuiteResult, judge_records

ROW_IMAGES: tuple[str, ...] = ("FULL", "MINIMAL", "NOBLOB")
# How a workload's runs are chosen: `one` variant per workload (the formats in turn, a
# seeded row image), every `formats` with FULL images, or `all` format and image pairs
# that differ (STATEMENT logs no row images).
VARIANT_MODES: tuple[str, ...] = ("one", "formats", "all")


@dataclass(frozen=True)
class FuzzConfig:
    count: int = 100
    seed: int = 0
    interleavings: int = 1  # per workload
    variants: str = "one"
    generator: GeneratorConfig = field(default_factory=GeneratorConfig)
    shrink_limit: int = 10  # findings shrunk; the rest are reported as found
    shrink_budget: int = 300  # candidate runs per shrink
    keep_binlogs: bool = False  # keep the binlogs of consistent runs too

    def __post_init__(self) -> None:
        if self.count < 1 or self.interleavings < 1:
            raise ValueError("count and interleavings must be at least 1")
        if self.variants not in VARIANT_MODES:
            raise ValueError(f"variants must be one of {', '.join(VARIANT_MODES)}, got {self.variants!r}")


def workload_variants(seed: int, index: int, mode: str) -> list[dict[str, str]]:
    """The settings each run of workload `index` gets."""
    if mode == "one":
        image = random.Random(f"rplharness-variant:{seed}:{index}").choices(ROW_IMAGES, weights=(3, 2, 1))[0]
        return [{"binlog_format": BINLOG_FORMATS[index % len(BINLOG_FORMATS)], "binlog_row_image": image}]
    if mode == "formats":
        return [{"binlog_format": binlog_format, "binlog_row_image": "FULL"} for binlog_format in BINLOG_FORMATS]
    return [{"binlog_format": "STATEMENT", "binlog_row_image": "FULL"}] + [
        {"binlog_format": binlog_format, "binlog_row_image": image} for binlog_format in ("MIXED", "ROW") for image in ROW_IMAGES
    ]


@dataclass
class FuzzRun:
    """One run as a worker hands it back: the record, what identifies its binlog and its
    master's end state, and whether the single-run comparison already saw a finding."""

    record: RunRecord
    binlog_digest: str | None
    master_digest: str | None
    finding: bool


@dataclass
class WorkloadRuns:
    index: int
    interleavings: int
    runs: list[FuzzRun]


@dataclass(frozen=True)
class WorkloadRunner:
    """Generates workload `index`, explores its interleavings and runs each under its variants."""

    config: FuzzConfig
    flavor: Flavor
    binlog_dir: Path

    def __call__(self, index: int) -> WorkloadRuns:
        config = self.config
        try:
            workload = generate_workload(config.seed, index, config.generator)
            interleavings = explore(workload, config.interleavings, rng_seed=config.seed * 1_000_003 + index)
            scenarios = [workload.scenario(order) for order in interleavings]
        except Exception:  # a generator failure is this workload's error, not the command's
            return self.failed(index, traceback.format_exc())
        runs = []
        for scenario in scenarios:
            for variant in workload_variants(config.seed, index, config.variants):
                pinned = replace(scenario, matrix={name: (value,) for name, value in variant.items()})
                record = run_variant(pinned, pinned.variants()[0], self.flavor, self.binlog_dir, config.seed)
                runs.append(self._summarise(record))
        return WorkloadRuns(index, len(interleavings), runs)

    def records(self, result: WorkloadRuns) -> list[RunRecord]:
        return [run.record for run in result.runs]

    def failed(self, index: int, text: str) -> WorkloadRuns:
        """The workload's one run when making it raised: an error verdict."""
        name = f"fuzz-s{self.config.seed}-{index:05d}"
        record = RunRecord(name, Scenario(name, None), {}, "", 0)
        record.error = text
        return WorkloadRuns(index, 0, [FuzzRun(record, None, None, False)])

    def _summarise(self, record: RunRecord) -> FuzzRun:
        """Digests, and the single-run verdict: it counts findings as they come, and a
        consistent run's binlog is not kept (a fuzz run writes thousands)."""
        binlog = record.binlog if record.binlog is not None and record.binlog.exists() else None
        binlog_digest = _digest(binlog.read_bytes()) if binlog is not None else None
        if record.master_snapshot is None or record.slave_snapshot is None:
            return FuzzRun(record, binlog_digest, None, False)
        verdict = judge(record, diff_snapshots(record.master_snapshot, record.slave_snapshot)).verdict
        master_digest = _digest(_state(record.master_snapshot).encode())
        if verdict is Verdict.CONSISTENT:
            # The report leaves a consistent run's statements out; not carrying them
            # back keeps a 10 000-run command's memory small.
            record.schema_steps, record.steps, record.effects = [], [], []
            if record.slave is not None:
                record.slave.lookups = []
            if not self.config.keep_binlogs and binlog is not None:
                binlog.unlink()
        return FuzzRun(record, binlog_digest, master_digest, verdict is Verdict.FINDING)


@dataclass(frozen=True)
class Exploration:
    """How much of the workloads' behaviour the command covered. Binlogs and end states
    are counted per workload and variant: two interleavings that log the same binlog, or
    end in the same master tables, count once."""

    workloads: int
    interleavings: int
    runs: int
    distinct_binlogs: int
    distinct_master_states: int

    def as_dict(self) -> dict[str, int]:
        return asdict(self)


@dataclass(frozen=True)
class ShrunkFinding:
    """A finding cut down to a scenario that still gives it, and where it was written."""

    scenario: Scenario
    variant: dict[str, str]
    yaml: Path
    test: Path
    runs: int  # candidate runs the shrinking took
    reproduced: bool  # the written scenario, loaded back and run, gave the same finding
    statement: Step | None  # the step that caused it, in the shrunk scenario
    text: str = ""  # the scenario file as written
    passes: tuple[PassStats, ...] = ()  # per shrinking pass: candidates tried, run and kept


@dataclass
class Finding:
    outcome: RunOutcome
    kind: str
    shrunk: ShrunkFinding | None = None

    @cached_property
    def cause(self) -> StepResult | None:
        """The step that caused it in the run as found, traced through its row changes."""
        return causing_step(self.outcome.record, self.outcome.diff)

    @cached_property
    def signature(self) -> Signature:
        return signature(self.outcome.record, self.outcome.diff, self.cause)

    @property
    def statement(self) -> Step | None:
        """The step that caused it: from the shrunk scenario when there is one."""
        if self.shrunk is not None:
            return self.shrunk.statement
        cause = self.cause
        return None if cause is None or cause.index is None else Step(cause.index, cause.session, cause.sql)


@dataclass
class FindingGroup:
    """Findings with one signature: reported once, with the smallest shrunk example."""

    signature: Signature
    findings: list[Finding]

    @property
    def example(self) -> Finding:
        shrunk = [f for f in self.findings if f.shrunk is not None and f.shrunk.reproduced] or [f for f in self.findings if f.shrunk is not None]
        if shrunk:
            return min(shrunk, key=lambda f: len(f.shrunk.scenario.steps) if f.shrunk else 0)
        return min(self.findings, key=lambda f: len(f.outcome.record.scenario.steps))


def group_findings(findings: list[Finding]) -> list[FindingGroup]:
    """One group per signature, largest first."""
    groups: dict[Signature, list[Finding]] = {}
    for finding in findings:
        groups.setdefault(finding.signature, []).append(finding)
    return sorted((FindingGroup(sig, members) for sig, members in groups.items()), key=lambda group: -len(group.findings))


@dataclass
class FuzzResult:
    suite: SuiteResult
    exploration: Exploration
    findings: list[Finding]

    @property
    def groups(self) -> list[FindingGroup]:
        return group_findings(self.findings)

    @property
    def exit_code(self) -> int:
        """0 when clean; 1 on a finding, a simulator error or an unsupported statement: the
        generator's workloads diverge by design, so a divergence the server explains is
        not a failure here."""
        failing = (Verdict.FINDING, Verdict.ERROR, Verdict.UNSUPPORTED)
        return 1 if any(run.judgement.verdict in failing for run in self.suite.runs) else 0


def fuzz(
    config: FuzzConfig,
    flavor: Flavor,
    out: Path,
    start_spark: Callable[[], object],
    workers: int | None = None,
    progress: Progress | None = None,
    executor: str = "local",
    compare: str = "spark",
) -> FuzzResult:
    """Generate, run, compare in one Spark job, judge, shrink: the whole command. A
    `Prestart` of Spark begins once the first workload is back (the workers are forked).
    `executor` "spark": the workloads run and are compared as Spark tasks; the findings
    are shrunk here."""
    binlog_dir = out / "binlogs"
    per_workload: list[WorkloadRuns] = []
    diffs: dict[str, RunDiff] | None = None
    not_run: list[str] = []
    if executor == "spark":
        runner = WorkloadRunner(config, flavor, binlog_dir)
        on_spark = run_on_spark(start_spark(), runner, range(config.count), lambda index: f"workload {index}", _advance(progress), compare=spark_compare(compare))
        per_workload, diffs, not_run = on_spark.results, on_spark.diffs, on_spark.missing  # type: ignore[assignment]
    for workload in _run_workloads(config, flavor, binlog_dir, workers, progress) if executor == "local" else ():
        per_workload.append(workload)
        if isinstance(start_spark, Prestart) and compare == "spark":
            start_spark.begin()
    runs = [run for workload in per_workload for run in workload.runs]
    outcomes = judge_records([run.record for run in runs], out, start_spark, compare, diffs=diffs)
    for outcome in outcomes:
        outcome.explained_allowed = True
    exploration = Exploration(
        workloads=len(per_workload),
        interleavings=sum(workload.interleavings for workload in per_workload),
        runs=len(runs),
        distinct_binlogs=_distinct(per_workload, lambda run: run.binlog_digest),
        distinct_master_states=_distinct(per_workload, lambda run: run.master_digest),
    )
    findings = [Finding(outcome, outcome.judgement.explanation[0]) for outcome in outcomes if outcome.judgement.verdict is Verdict.FINDING]
    chosen = _to_shrink(group_findings(findings), config.shrink_limit)
    shrinker = Shrinker(flavor, out / "findings", config.seed, config.shrink_budget)
    for finding, shrunk in zip(chosen, parallel_map(shrinker, [(finding.outcome.record, finding.kind) for finding in chosen], workers)):
        finding.shrunk = shrunk
    return FuzzResult(SuiteResult(outcomes, [], not_run), exploration, findings)


def _run_workloads(config: FuzzConfig, flavor: Flavor, binlog_dir: Path, workers: int | None, progress: Progress | None) -> Iterator[WorkloadRuns]:
    runner = WorkloadRunner(config, flavor, binlog_dir)
    advance = _advance(progress)
    for workload in parallel_map(runner, range(config.count), workers):
        advance(workload)
        yield workload


def _advance(progress: Progress | None) -> Callable[[WorkloadRuns], None]:
    """What tells the progress line of each workload that came back."""

    def advance(workload: WorkloadRuns) -> None:
        if progress is not None:
            progress.advance(runs=len(workload.runs), findings=sum(run.finding for run in workload.runs))

    return advance


def _distinct(per_workload: list[WorkloadRuns], digest: Callable[[FuzzRun], str | None]) -> int:
    """Distinct digests per workload and variant."""
    return len({(workload.index, run.record.label, digest(run)) for workload in per_workload for run in workload.runs if digest(run)})


def _to_shrink(groups: list[FindingGroup], limit: int) -> list[Finding]:
    """Up to `limit` findings, each group in turn and, within a group, the fewest steps
    first and workloads not yet chosen first: one workload often gives the same finding
    under several variants."""
    queues = [sorted(group.findings, key=lambda f: len(f.outcome.record.scenario.steps)) for group in groups]
    chosen: list[Finding] = []
    workloads: set[str] = set()
    while len(chosen) < limit and any(queues):
        for queue in queues:
            if queue and len(chosen) < limit:
                fresh = next((f for f in queue if _workload_of(f) not in workloads), queue[0])
                queue.remove(fresh)
                chosen.append(fresh)
                workloads.add(_workload_of(fresh))
    return chosen


def _workload_of(finding: Finding) -> str:
    """`fuzz-s7-00003` of scenario `fuzz-s7-00003-1221...`."""
    return finding.outcome.record.scenario.name.rsplit("-", 1)[0]


@dataclass(frozen=True)
class Shrinker:
    """Shrinks one finding's scenario and writes it as `<run id>.yaml` and `<run id>.test`."""

    flavor: Flavor
    directory: Path
    seed: int
    budget: int

    def __call__(self, finding: tuple[RunRecord, str]) -> ShrunkFinding:
        record, kind = finding
        work = self.directory / ".binlogs"
        result = shrink(record.scenario, lambda candidate: self._reproduces(candidate, record.variant, kind, work), self.budget)
        minimal = replace(
            result.scenario,
            description=f"Shrunk from {record.run_id} ({len(record.scenario.steps)} steps): {kind}. "
            "The slave should end with the master's tables; while the finding stands, it does not.",
            expect=(Expectation(when={}, verdict=Verdict.CONSISTENT),),
            flavor=self.flavor.name,
            seed=self.seed,
        )
        yaml_path = self.directory / f"{record.run_id}.yaml"
        write_scenario(minimal, yaml_path)
        written = load_scenario(yaml_path)
        final = run_variant(written, record.variant, self.flavor, work, self.seed)
        judgement, diff = _finding(final, kind)
        test_path = self.directory / f"{record.run_id}.test"
        errors = {step.index: step.error.code for step in final.steps if step.error is not None and step.index is not None}
        waits = {step.index: step.ran_after_step for step in final.steps if step.ran_after_step is not None and step.index is not None}
        write_mysqltest(minimal, record.variant, test_path, errors, waits, self.flavor)
        _remove(final)
        cause = causing_step(final, diff) if judgement is not None else None
        statement = None if cause is None or cause.index is None else Step(cause.index, cause.session, cause.sql)
        return ShrunkFinding(minimal, record.variant, yaml_path, test_path, result.runs, judgement is not None, statement, yaml_path.read_text(encoding="utf-8"), result.passes)

    def _reproduces(self, candidate: Scenario, variant: dict[str, str], kind: str, work: Path) -> bool:
        record = run_variant(candidate, variant, self.flavor, work, self.seed)
        try:
            return _finding(record, kind)[0] is not None
        finally:
            _remove(record)


def _finding(record: RunRecord, kind: str) -> tuple[Judgement | None, RunDiff | None]:
    """The run's judgement and differences when it gives a finding of `kind`; None else."""
    if record.master_snapshot is None or record.slave_snapshot is None:
        return None, None
    diff = diff_snapshots(record.master_snapshot, record.slave_snapshot)
    judgement = judge(record, diff)
    if judgement.verdict is Verdict.FINDING and judgement.explanation[0] == kind:
        return judgement, diff
    return None, None


def _remove(record: RunRecord) -> None:
    if record.binlog is not None:
        record.binlog.unlink(missing_ok=True)


def _state(snapshot: ServerSnapshot) -> str:
    """A server's tables as text that is equal exactly when their contents are (rows as a multiset)."""
    return json.dumps(
        {name: sorted(json.dumps([canonical(value) for value in row]) for row in table.rows) for name, table in sorted(snapshot.tables.items())},
        separators=(",", ":"),
    )


def _digest(data: bytes) -> str:
    return hashlib.blake2b(data, digest_size=16).hexdigest()
