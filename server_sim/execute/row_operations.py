"""A statement's change of one row with the table's triggers around it: the handler call
between the BEFORE and AFTER triggers, as single-table and multi-table UPDATE and DELETE,
REPLACE and ON DUPLICATE KEY UPDATE all do it."""

from __future__ import annotations

from dataclasses import dataclass

from ..table import Table
from ..statement import TriggerEvent, TriggerTiming, WriteMode
from .assignments import Assignments, touch_on_update, update_write_set
from .handler import coerce_row
from .run import StatementRun
from .triggers import fire, trigger_write_set


@dataclass
class RowUpdate:
    """One row an UPDATE reached: where it is, what it held, and the values the SET gives it."""

    table: Table
    row_id: int
    before: tuple
    values: list[object]
    assignments: Assignments
    row_number: int  # the row's place in the statement, for truncation warnings and errors


def apply_update(run: StatementRun, update: RowUpdate) -> None:
    """Give one row of an UPDATE its new values, as its BEFORE UPDATE triggers leave them:
    nothing happens to an unchanged row, a duplicate key fails the statement (UPDATE
    IGNORE: skips the row with a warning); a changed row fires the AFTER UPDATE triggers."""
    table, before, rows, outcome = update.table, update.before, run.rows, run.outcome
    after = coerce_row(table, update.values, update.row_number, run.server.flavor.temporal)
    after = before_update(run, table, before, after, update.row_number)
    if after == before:
        return  # the handler is not called for an unchanged row: no row event
    changed = {c.name for c, b, a in zip(table.columns, before, after) if b != a}
    after = touch_on_update(table, after, update.assignments, run.context.timestamp)
    touched_keys = [key for key in table.unique_keys() if set(key.columns) & changed]
    conflict = rows.find_conflict(table, after, exclude=update.row_id, keys=touched_keys)
    if conflict is not None:
        outcome.duplicates.append((table, tuple(conflict[1][1:])))
        error = rows.duplicate_error(table, conflict[0], after)
        if run.statement.write_mode is not WriteMode.IGNORE:
            raise error
        # UPDATE IGNORE leaves this row as it was, warns (MySQL), and goes on with the next.
        if run.server.flavor.update_ignore_warns_duplicate:
            outcome.warnings.append(error.condition("Warning"))
        return
    write_set = update_write_set(table, update.assignments) | trigger_write_set(run.catalog, table, TriggerEvent.UPDATE)
    rows.update_row(table, update.row_id, before, after, write_set)
    outcome.affected_rows += 1
    fire(run, table, TriggerEvent.UPDATE, TriggerTiming.AFTER, before, after)


def before_update(run: StatementRun, table: Table, before: tuple, after: tuple, row_number: int) -> tuple:
    """The updated row as the table's BEFORE UPDATE triggers leave it (they run for every row reached)."""
    if not run.catalog.triggers_of(table, TriggerEvent.UPDATE, TriggerTiming.BEFORE):
        return after
    changed = fire(run, table, TriggerEvent.UPDATE, TriggerTiming.BEFORE, before, after)
    return coerce_row(table, list(changed or after), row_number, run.server.flavor.temporal)


def delete_firing_triggers(run: StatementRun, table: Table, row_id: int, before: tuple) -> None:
    """A DELETE's (or REPLACE's) removal of one row, between its BEFORE and AFTER DELETE triggers."""
    fire(run, table, TriggerEvent.DELETE, TriggerTiming.BEFORE, before, None)
    run.rows.delete_row(table, row_id, before)
    run.outcome.affected_rows += 1
    fire(run, table, TriggerEvent.DELETE, TriggerTiming.AFTER, before, None)
