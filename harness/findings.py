"""What a finding is about: the step that caused it, traced through the run's own row
changes, and the signature that groups findings with one cause.

A fuzz run of thousands of workloads often hits one defect dozens of times, under several
formats and row images; a replication engineer wants it once, with a count and the
smallest example. The format is left out of the signature for that reason (the group
lists the formats it was seen under). The signature is what stays the same across those runs: what went
wrong (a divergence or a slave stop, and its error), the shape of the differing table, the
unsafe reasons of the statement that caused it and that statement's kind.
"""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass

from sqlglot import exp

from master_sim.results import RowEffect, StepResult
from server_sim.errors import SqlError
from server_sim.parser import parse_statement
from server_sim.statement import StatementKind, WriteMode

from .compare import RunDiff, TableDiff
from .runner import RunRecord
from .snapshot import canonical

_TABLE_OF_EVENT = re.compile(r"on table [^.\s]+\.([^;\s]+)")


@dataclass(frozen=True)
class Signature:
    """What findings with one cause share."""

    kind: str  # `divergence` or `slave stop`
    error: int | None  # the slave's error, for a stop
    table_shape: str | None  # for a divergence: the differing table's key and how it differs
    unsafe: tuple[str, ...]  # the causing statement's unsafe reasons
    statement_kind: str | None  # the causing statement's kind, e.g. `REPLACE`, `UPDATE ... LIMIT`

    @property
    def title(self) -> str:
        """One line a person reads: `slave stop 1032 after REPLACE unsafe: SYSTEM_FUNCTION`."""
        parts = [f"{self.kind} {self.error}" if self.error is not None else self.kind]
        if self.statement_kind:
            parts.append(f"after {self.statement_kind}")
        if self.unsafe:
            parts.append(f"unsafe: {', '.join(self.unsafe)}")
        if self.table_shape:
            parts.append(f"({self.table_shape})")
        return " ".join(parts)

    def as_dict(self) -> dict[str, object]:
        return asdict(self) | {"unsafe": list(self.unsafe)}


def causing_step(record: RunRecord, diff: RunDiff | None) -> StepResult | None:
    """The step that caused the run's difference: for a stopped slave, the step whose
    events it stopped at; for a divergence, the step that last wrote the first differing
    row on the master, as its row changes show. None when no step did (the row came
    from master_schema)."""
    slave = record.slave
    if slave is not None and not slave.running and slave.error is not None:
        return _step_at_position(record, slave.error_position, slave.error.message)
    if diff is None or diff.consistent:
        return None
    return _last_writer(record, diff.tables[0])


def signature(record: RunRecord, diff: RunDiff | None, cause: StepResult | None) -> Signature:
    slave = record.slave
    stopped = slave is not None and not slave.running and slave.error is not None
    return Signature(
        kind="slave stop" if stopped else "divergence",
        error=slave.error.code if stopped and slave is not None and slave.error is not None else None,
        table_shape=None if stopped or diff is None or diff.consistent else table_shape(diff.tables[0]),
        unsafe=tuple(sorted(cause.unsafe)) if cause is not None else (),
        statement_kind=statement_kind(cause.sql) if cause is not None else None,
    )


def table_shape(table: TableDiff) -> str:
    """`primary key, rows changed`: the table's key and how the slave's rows differ."""
    if table.missing_on:
        return f"table missing on the {table.missing_on}"
    key = "primary key" if table.key else "no primary key"
    how = []
    if table.key_matched:
        how.append("rows changed")
    if table.rows_missing:
        how.append("rows missing on the slave")
    if table.rows_extra:
        how.append("extra rows on the slave")
    return ", ".join([key, *how])


def statement_kind(sql: str) -> str:
    """The statement's kind with what changes how it replicates: `INSERT ... SELECT`,
    `INSERT ... ON DUPLICATE KEY UPDATE`, `REPLACE`, `UPDATE ... LIMIT`, multi-table ..."""
    try:
        statement = parse_statement(sql)
    except SqlError:
        return sql.split(None, 1)[0].upper() if sql.split() else "?"
    kind = statement.kind.value
    ast = statement.ast
    if statement.kind in (StatementKind.INSERT, StatementKind.REPLACE) and ast is not None:
        if statement.write_mode is WriteMode.IGNORE:
            kind += " IGNORE"
        if ast.args.get("expression") is not None and ast.expression.find(exp.Select) is not None:
            kind += " ... SELECT"
        if statement.write_mode is WriteMode.UPDATE:
            kind += " ... ON DUPLICATE KEY UPDATE"
    elif statement.kind in (StatementKind.UPDATE, StatementKind.DELETE) and ast is not None:
        if len(statement.table_nodes) > 1:
            kind = f"multi-table {kind}"
        if ast.args.get("limit") is not None:
            kind += " ... LIMIT"
    return kind


def _step_at_position(record: RunRecord, position: int | None, message: str) -> StepResult | None:
    """The step whose binlog range holds `position`; when that step only committed (its
    range holds the transaction's events), the session's last step before it that wrote
    the table the slave names."""
    if position is None:
        return None
    ordered = [step for step in record.steps if step.index is not None]
    at = next((step for step in ordered if any(start <= position < end for start, end in step.binlog_ranges)), None)
    if at is None:
        return None
    match = _TABLE_OF_EVENT.search(message)
    table = match.group(1).strip("`'").lower() if match else None
    writers = {effect.step for effect in record.effects if table is None or effect.table.lower() == table}
    if at.index in writers:
        return at
    earlier = ordered[: ordered.index(at)]
    return next((step for step in reversed(earlier) if step.session == at.session and step.index in writers), at)


def _last_writer(record: RunRecord, table: TableDiff) -> StepResult | None:
    """The step of the last master row change that produced or removed the first
    differing row: matched on the primary key where the table has one, else on every
    compared column."""
    sample = next(iter(table.master_samples or table.slave_samples), None)
    snapshot = record.master_snapshot.tables.get(table.table) if record.master_snapshot is not None else None
    if sample is None or snapshot is None:
        return None
    match_on = table.key or table.columns
    position = {column.lower(): index for index, column in enumerate(snapshot.columns)}
    if any(column.lower() not in position for column in match_on):
        return None
    wanted = [(position[column.lower()], sample.get(column)) for column in match_on]

    def matches(row: tuple | None) -> bool:
        return row is not None and all(index < len(row) and canonical(row[index]) == value for index, value in wanted)

    name = table.table.lower()
    effect: RowEffect | None = next(
        (e for e in reversed(record.effects) if e.table.lower() == name and (matches(e.after) or matches(e.before))),
        None,
    )
    if effect is None or effect.step is None:
        return None
    return next((step for step in record.steps if step.index == effect.step), None)
