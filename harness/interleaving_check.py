"""`rplharness fuzz --from SCENARIO`: other interleavings of a workload's sessions.

A captured order is one of many that production could produce: the same sessions'
statements, interleaved otherwise, may replicate differently (a statement that read
rows another session had not yet committed, an unsafe statement logged before a row
it depends on). The scenario's sessions become a workload, the interleaving explorer
picks its distinct interleavings (one per Mazurkiewicz trace: statements on disjoint
tables commute), each runs under the formats, and every divergence is charged to the
shape of the statement that last wrote the first differing row. Shapes that diverge
under some interleaving but not under the captured order are the news.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from pathlib import Path

from harness.compare import diff_snapshots
from harness.digest import digest
from harness.findings import causing_step
from harness.runner import run_variant
from scenarios.interleavings import explore, normal_form
from scenarios.model import Scenario
from scenarios.workload import GeneratedStatement, Workload
from scenarios.writer import write_scenario
from server_sim.errors import SqlError
from server_sim.flavor import Flavor
from server_sim.parser import parse_statement
from server_sim.statement import used_tables


@dataclass
class ShapeDivergence:
    """The runs in which a shape's statement made the tables differ."""

    shape: str
    under_captured: list[str] = field(default_factory=list)  # variant labels
    under_others: dict[str, list[str]] = field(default_factory=dict)  # interleaving label -> variant labels
    example: Path | None = None  # a scenario file of the first other interleaving


@dataclass
class InterleavingCheck:
    scenario: str
    interleavings: int  # run, the captured one included
    runs: int
    diverged_runs: int
    shapes: list[ShapeDivergence]

    @property
    def consistent(self) -> bool:
        return self.diverged_runs == 0


def workload_of(scenario: Scenario) -> Workload:
    """The scenario's sessions as a workload; a statement the simulator cannot parse
    conflicts with every other (it is never reordered around)."""
    sessions: dict[str, list[GeneratedStatement]] = {}
    for step in scenario.steps:
        sessions.setdefault(step.session, []).append(_statement(step.sql))
    return Workload(
        seed=0,
        index=0,
        master_schema=scenario.master_schema,
        sessions={name: tuple(statements) for name, statements in sessions.items()},
        slave_schema=scenario.slave_schema,
        settings=dict(scenario.settings),
        volatile=scenario.volatile,
    )


def _statement(sql: str) -> GeneratedStatement:
    try:
        statement = parse_statement(sql)
    except SqlError:
        return GeneratedStatement(sql, transaction_control=True)
    tables = frozenset(used_tables(statement))
    return GeneratedStatement(sql, tables, statement.kind.is_transaction_control or not tables and statement.kind.is_ddl)


def check_interleavings(scenario: Scenario, flavor: Flavor, work: Path, out: Path, variants: list[dict[str, str]], limit: int, seed: int) -> InterleavingCheck:
    """Run the captured order and up to `limit` other interleavings under `variants`."""
    workload = workload_of(scenario)
    captured = normal_form(workload, tuple(step.session for step in scenario.steps))
    orders = [captured] + [order for order in explore(workload, limit, seed) if order != captured][:limit]
    shapes: dict[str, ShapeDivergence] = {}
    runs = diverged = 0
    for order in orders:
        candidate = dataclasses.replace(workload.scenario(order), name=f"{scenario.name}-{workload.interleaving_label(order)}")
        for variant in variants:
            runs += 1
            shape = _diverging_shape(candidate, variant, flavor, work)
            if shape is None:
                continue
            diverged += 1
            entry = shapes.setdefault(shape, ShapeDivergence(shape))
            if order == captured:
                entry.under_captured.append(_label(variant))
            else:
                entry.under_others.setdefault(workload.interleaving_label(order), []).append(_label(variant))
                if entry.example is None:
                    entry.example = out / "interleavings" / f"{candidate.name}.yaml"
                    write_scenario(candidate, entry.example)
    return InterleavingCheck(scenario.name, len(orders), runs, diverged, list(shapes.values()))


def _diverging_shape(scenario: Scenario, variant: dict[str, str], flavor: Flavor, work: Path) -> str | None:
    """The shape of the statement that made this run's tables differ; None when they do not."""
    record = run_variant(dataclasses.replace(scenario, matrix={}), {**scenario.settings, **variant}, flavor, work)
    if record.master_snapshot is None or record.slave_snapshot is None:
        return None
    diff = diff_snapshots(record.master_snapshot, record.slave_snapshot)
    stopped = record.slave is not None and not record.slave.running and record.slave.error is not None
    if diff.consistent and not stopped:
        return None
    cause = causing_step(record, diff)
    return digest(cause.sql) if cause is not None else "(the schema's rows)"


def _label(variant: dict[str, str]) -> str:
    return ",".join(f"{name}={value}" for name, value in variant.items())


def render(check: InterleavingCheck) -> str:
    lines = [f"{check.scenario}: {check.interleavings} interleavings (the captured one first), {check.runs} runs, {check.diverged_runs} diverged"]
    for shape in check.shapes:
        lines.append(f"  {shape.shape}")
        if shape.under_captured:
            lines.append(f"    diverges in the captured order under {', '.join(shape.under_captured)}")
        if shape.under_others and not shape.under_captured:
            lines.append("    diverges only under other interleavings:")
        for label, variants in list(shape.under_others.items())[:5]:
            lines.append(f"    interleaving {label}: {', '.join(variants)}")
        if shape.example is not None:
            lines.append(f"    example: {shape.example}")
    return "\n".join(lines) + "\n"
