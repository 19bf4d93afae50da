"""`rplharness check-workload`: one workload run under every binlog format and row image,
judged per statement shape.

A replication engineer asks whether an application's traffic replicates under another
format. The answer, with evidence from the workload itself: for each shape (a statement
digest), whether it is unsafe for statement logging and why, what it was logged as under
each variant, its errors; for each variant, whether the slave ended with the master's
tables, and if not, the first step after which a table differed (found by running
ever shorter prefixes of the steps) and the step that last wrote the first differing row.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from pathlib import Path

from harness.compare import diff_snapshots
from harness.digest import digest
from harness.findings import causing_step
from harness.runner import RunRecord, run_variant
from master_sim.unsafe import UnsafeReason
from scenarios.model import BINLOG_FORMATS, Scenario
from server_sim.flavor import Flavor

ROW_IMAGES: tuple[str, ...] = ("FULL", "MINIMAL", "NOBLOB")


@dataclass
class VariantCheck:
    """One run: its outcome, and for a divergence where it started."""

    label: str
    outcome: str  # consistent | divergent | slave stopped | simulator error
    tables: list[str] = field(default_factory=list)
    first_step: int | None = None  # the step after which a table first differs
    last_writer: int | None = None  # the step that last wrote the first differing row
    slave_error: str = ""
    refused: int = 0  # steps the simulator refused (1235) or could not parse (1064)


@dataclass
class ShapeCheck:
    """One statement shape across the runs."""

    shape: str
    steps: list[int] = field(default_factory=list)
    unsafe: dict[str, str] = field(default_factory=dict)  # reason name -> the server's text
    logged_as: dict[str, set[str]] = field(default_factory=dict)  # binlog_format -> STATEMENT/ROW/none
    errors: dict[int, str] = field(default_factory=dict)  # code -> first message
    diverged_under: list[str] = field(default_factory=list)  # variants whose first differing step is this shape's


@dataclass
class WorkloadCheck:
    scenario: str
    variants: list[VariantCheck]
    shapes: list[ShapeCheck]

    @property
    def consistent(self) -> bool:
        return all(variant.outcome == "consistent" for variant in self.variants)


def check_variants(scenario: Scenario, formats: tuple[str, ...], images: tuple[str, ...]) -> list[dict[str, str]]:
    """The scenario's settings under each format and, where rows are logged, each row image."""
    variants = []
    for binlog_format in formats:
        for image in images if binlog_format != "STATEMENT" else images[:1]:
            variants.append({**scenario.settings, "binlog_format": binlog_format, "binlog_row_image": image})
    return variants


def check_workload(scenario: Scenario, flavor: Flavor, work: Path, formats: tuple[str, ...] = BINLOG_FORMATS, images: tuple[str, ...] = ROW_IMAGES) -> WorkloadCheck:
    shapes: dict[str, ShapeCheck] = {}
    for step in scenario.steps:
        shapes.setdefault(digest(step.sql), ShapeCheck(digest(step.sql))).steps.append(step.index)
    shape_of = {step.index: digest(step.sql) for step in scenario.steps}
    variants = []
    for variant in check_variants(scenario, formats, images):
        record = run_variant(scenario, variant, flavor, work)
        check = _judge(scenario, variant, record, flavor, work)
        _collect(shapes, shape_of, record, variant["binlog_format"])
        if check.first_step is not None:
            shapes[shape_of[check.first_step]].diverged_under.append(check.label)
        variants.append(check)
    return WorkloadCheck(scenario.name, variants, list(shapes.values()))


def _judge(scenario: Scenario, variant: dict[str, str], record: RunRecord, flavor: Flavor, work: Path) -> VariantCheck:
    check = VariantCheck(_label(variant), "")
    check.refused = sum(1 for step in record.steps if step.error is not None and step.error.code in (1235, 1064))
    if record.error is not None or record.master_snapshot is None or record.slave_snapshot is None:
        check.outcome = "simulator error"
        return check
    diff = diff_snapshots(record.master_snapshot, record.slave_snapshot)
    stopped = record.slave is not None and not record.slave.running and record.slave.error is not None
    if diff.consistent and not stopped:
        check.outcome = "consistent"
        return check
    check.outcome = "slave stopped" if stopped else "divergent"
    check.slave_error = str(record.slave.error.message) if stopped and record.slave is not None and record.slave.error else ""
    check.tables = [table.table for table in diff.tables]
    cause = causing_step(record, diff)
    check.last_writer = cause.index if cause is not None else None
    check.first_step = _first_differing_step(scenario, variant, flavor, work)
    return check


def _differs(scenario: Scenario, variant: dict[str, str], flavor: Flavor, work: Path, count: int) -> bool:
    record = run_variant(dataclasses.replace(scenario, steps=scenario.steps[:count]), variant, flavor, work)
    if record.master_snapshot is None or record.slave_snapshot is None:
        return True
    stopped = record.slave is not None and not record.slave.running and record.slave.error is not None
    return stopped or not diff_snapshots(record.master_snapshot, record.slave_snapshot).consistent


def _first_differing_step(scenario: Scenario, variant: dict[str, str], flavor: Flavor, work: Path) -> int | None:
    """The step after which the tables differ while they did not just before it, by
    bisecting the prefixes of the steps (sessions end after the last step of a prefix,
    so an open transaction is rolled back: its divergence shows at its COMMIT)."""
    low, high = 0, len(scenario.steps)
    if _differs(scenario, variant, flavor, work, 0):
        return None  # the schema alone differs
    while high - low > 1:
        middle = (low + high) // 2
        if _differs(scenario, variant, flavor, work, middle):
            high = middle
        else:
            low = middle
    return scenario.steps[high - 1].index if high else None


def _collect(shapes: dict[str, ShapeCheck], shape_of: dict[int, str], record: RunRecord, binlog_format: str) -> None:
    for step in record.steps:
        if step.index is None:
            continue
        shape = shapes[shape_of[step.index]]
        for reason in step.unsafe:
            shape.unsafe.setdefault(reason, UnsafeReason[reason].text if reason in UnsafeReason.__members__ else reason)
        shape.logged_as.setdefault(binlog_format, set()).add(step.logged_as)
        if step.error is not None:
            shape.errors.setdefault(step.error.code, step.error.message)


def _label(variant: dict[str, str]) -> str:
    if variant["binlog_format"] == "STATEMENT":
        return "binlog_format=STATEMENT"
    return f"binlog_format={variant['binlog_format']},binlog_row_image={variant['binlog_row_image']}"


def as_dict(check: WorkloadCheck) -> dict[str, object]:
    """The check as JSON: variants and shapes, sets as sorted lists."""
    return {
        "scenario": check.scenario,
        "consistent": check.consistent,
        "variants": [dataclasses.asdict(variant) for variant in check.variants],
        "shapes": [
            dataclasses.asdict(shape) | {"logged_as": {name: sorted(values) for name, values in shape.logged_as.items()}}
            for shape in check.shapes
        ],
    }
