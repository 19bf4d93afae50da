"""A statement's change of one row with the table's triggers around it: the handler call
between the BEFORE and AFTER triggers, as single-table and multi-table UPDATE and DELETE,
REPLACE and ON DUPLICATE KEY UPDATE all do it."""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal, InvalidOperation

from ..errors import Condition, ErrorCode, SqlError, not_supported
from ..table import Table
from ..types import TypeFamily
from ..statement import TriggerEvent, TriggerTiming, WriteMode
from .assignments import Assignments, touch_on_update, update_write_set
from ..sysvars import STRICT_MODES, sql_modes
from .handler import Leniency, coerce_row
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
    after = coerce_statement_row(run, table, update.values, update.row_number, unassigned(table, update.assignments))
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
    if not changed:
        return after
    kept = {column.name for column, new, old in zip(table.columns, changed, after) if new is old}
    return coerce_statement_row(run, table, list(changed), row_number, kept)


def unassigned(table: Table, pairs: Assignments) -> frozenset[str]:
    """The columns an UPDATE's SET leaves as they are stored."""
    return frozenset(column.name for column in table.columns) - {column.name for column, _ in pairs}


def coerce_statement_row(
    run: StatementRun, table: Table, values: list[object], row_number: int, keep: frozenset[str] | set[str] = frozenset(), null_warns: bool = True
) -> tuple:
    """coerce_row as the statement's sql_mode has it: strict (an adjusted value is an error)
    under STRICT_ALL_TABLES, or STRICT_TRANS_TABLES for a transactional table or the first
    row of a non-transactional one; otherwise, and for an IGNORE statement, a warning.
    `null_warns`: NULL for a NOT NULL column is a warning when the statement is not strict
    (not for a single-row INSERT)."""
    row = coerce_row(table, values, row_number, run.temporal_rules, statement_leniency(run, table, row_number, null_warns), keep)
    for column, given, stored in zip(table.columns, values, row):
        if column.type.family is TypeFamily.DECIMAL and column.name not in keep and _rounded_away(given, stored, column.type.scale or 0):
            run.outcome.warnings.append(SqlError(ErrorCode.ER_WARN_DATA_TRUNCATED, column.name, row_number).condition("Note"))
    return row


def _rounded_away(given: object, stored: object, scale: int) -> bool:
    """Whether a DECIMAL column stored a number rounded to its `scale` (Field_new_decimal's
    Note 1265: digits past the scale that were not zeros; a value clipped to the range
    has its own warning)."""
    if not isinstance(stored, Decimal) or isinstance(given, bool) or not isinstance(given, (Decimal, int, float, str)):
        return False
    try:
        number = Decimal(repr(given)) if isinstance(given, float) else Decimal(given.strip() if isinstance(given, str) else given)
    except InvalidOperation:
        return False
    return number.is_finite() and number != stored and abs(number - stored) < Decimal(1).scaleb(-scale)


def statement_leniency(run: StatementRun, table: Table, row_number: int, null_warns: bool = True) -> Leniency | None:
    """The statement's Leniency for this row of `table`, None when it is strict."""
    modes = sql_modes(run.session.variables)
    ignore = run.statement.write_mode is WriteMode.IGNORE
    strict = "STRICT_ALL_TABLES" in modes or ("STRICT_TRANS_TABLES" in modes and (table.engine.transactional or row_number == 1))
    if strict and not ignore:
        return None
    strict_sql_mode = bool(modes & STRICT_MODES)
    bit_too_long = strict_sql_mode and run.server.flavor.bit_overflow_warns_too_long_in_strict_sql_mode
    return Leniency(run.outcome.warnings, strict_sql_mode and not ignore, null_warns or ignore, bit_too_long)


def delete_firing_triggers(run: StatementRun, table: Table, row_id: int, before: tuple) -> None:
    """A DELETE's (or REPLACE's) removal of one row, between its BEFORE and AFTER DELETE triggers."""
    fire(run, table, TriggerEvent.DELETE, TriggerTiming.BEFORE, before, None)
    run.rows.delete_row(table, row_id, before)
    run.outcome.affected_rows += 1
    fire(run, table, TriggerEvent.DELETE, TriggerTiming.AFTER, before, None)


def settle_conditions(run: StatementRun, table: Table, row_number: int, raised: list[Condition]) -> None:
    """The conditions computing a row's values raised (a division by zero's 1365): the
    statement's error where it is strict for that row (Strict_error_handler: not IGNORE,
    STRICT_ALL_TABLES, or STRICT_TRANS_TABLES before a non-transactional table changed),
    its warnings otherwise."""
    if not raised:
        return
    if statement_leniency(run, table, row_number) is None:
        raise SqlError(ErrorCode[raised[0].name])
    run.outcome.warnings.extend(raised)


def settle_query_conditions(run: StatementRun, table: Table, raised: list[Condition]) -> None:
    """The conditions a query feeding a table's rows raised (INSERT ... SELECT): warnings,
    or the statement's error for a transactional table; into a non-transactional table
    the server's answer depends on the row that raised it, which one query cannot tell."""
    if not raised or statement_leniency(run, table, 1) is not None:  # lenient for its first row: for every row
        run.outcome.warnings.extend(raised)
        return
    if not table.engine.transactional:
        raise not_supported(f"a division by zero (1365) in the rows an {run.statement.kind.value} ... SELECT writes into the non-transactional table '{table.name}' (whether the server fails depends on the row)")
    settle_conditions(run, table, 1, raised)
