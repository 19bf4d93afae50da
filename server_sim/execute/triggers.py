"""Firing triggers: each row a statement writes, updates or deletes runs the table's
triggers for that operation. A BEFORE trigger's `SET NEW.col = ...` changes the row about
to be stored; a trigger's statement runs as a sub-statement whose row changes, warnings
and first auto-increment value are the statement's. A compound body (BEGIN ... END) runs
in the program runner, with this module's host."""

from __future__ import annotations

import dataclasses

from sqlglot import exp

from ..catalog import Catalog
from ..table import Table
from ..compound.program import assigned_columns
from ..compound.reader import trigger_program
from ..errors import ErrorCode, SqlError, not_supported
from ..functions.context import literal
from ..statement import ROW_STATEMENTS, RowVersion, Statement, TriggerDefinition, TriggerEvent, TriggerTiming, row_version, target_tables
from .program import ProgramRunner, RunHost
from .run import StatementRun
from .select import run_select
from .stored_functions import evaluate_calling, with_stored_functions

Rows = dict[RowVersion, "tuple | None"]


def fire(run: StatementRun, table: Table, event: TriggerEvent, timing: TriggerTiming, old: tuple | None, new: tuple | None) -> tuple | None:
    """Run the triggers of one row operation; returns the NEW row as BEFORE triggers left it."""
    for trigger in run.catalog.triggers_of(table, event, timing):
        rows: Rows = {RowVersion.OLD: old, RowVersion.NEW: new}
        if trigger.compound is not None:
            ProgramRunner(TriggerHost(run, table, trigger, rows)).run(trigger_program(trigger.compound))
            new = rows[RowVersion.NEW]
        elif trigger.body is None:
            new = _assign_new_row(run, table, trigger, rows)
        else:
            _run_body(run, table, trigger, rows)
    return new


def trigger_write_set(catalog: Catalog, table: Table, event: TriggerEvent) -> frozenset[str]:
    """The columns the table's BEFORE triggers of `event` assign to NEW: the server adds
    them to the statement's write set (Table_triggers_list::mark_fields_used), so a
    MINIMAL after image carries them."""
    return frozenset(
        column.name
        for trigger in catalog.triggers_of(table, event, TriggerTiming.BEFORE)
        for name in assigned_by(trigger)
        if (column := table.find_column(name)) is not None
    )


def assigned_by(trigger: TriggerDefinition) -> list[str]:
    """The NEW columns a trigger assigns."""
    if trigger.compound is not None:
        return assigned_columns(trigger_program(trigger.compound))
    return [name for name, _ in trigger.assignments]


def _bound(tree: exp.Expression, table: Table, rows: Rows) -> exp.Expression:
    """The tree with each NEW.col / OLD.col replaced by the row's value."""

    def substitute(node: exp.Expression) -> exp.Expression:
        version = row_version(node) if isinstance(node, exp.Column) else None
        if version is None:
            return node
        row = rows[version]
        assert row is not None  # CREATE TRIGGER refused references to a row the event lacks
        return literal(row[table.column_index(node.name)])

    return tree.transform(substitute)


def _assign_new_row(run: StatementRun, table: Table, trigger: TriggerDefinition, rows: Rows) -> tuple:
    """A `SET NEW.col = expr, ...` body: each assignment sees the ones before it."""
    values = list(rows[RowVersion.NEW] or ())
    for name, expression in trigger.assignments:
        values[table.column_index(name)] = evaluate_calling(run, [_bound(expression, table, rows)])[0]
        rows[RowVersion.NEW] = tuple(values)
    return tuple(values)


def _run_body(run: StatementRun, table: Table, trigger: TriggerDefinition, rows: Rows) -> None:
    assert trigger.body is not None
    run_sub_statement(run, dataclasses.replace(trigger.body, ast=_bound(trigger.body.ast, table, rows)), trigger.body.sql)


def run_sub_statement(run: StatementRun, body: Statement, text: str) -> None:
    """A trigger's statement, run as a sub-statement of `run` (1442 when it changes a table in use)."""
    for node in target_tables(body):
        if node.name.lower() in run.tables_in_use:
            raise SqlError(ErrorCode.ER_CANT_UPDATE_USED_TABLE_IN_SF_OR_TRG, node.name)
    sub = run.sub_run(body)
    sub.statement = with_stored_functions(sub, body)
    session, outcome = run.session, run.outcome
    last_insert_id = session.last_insert_id
    try:
        run.row_statements[body.kind](sub)
    finally:
        # A sub-statement's LAST_INSERT_ID() does not outlive it; its rows, diagnostics
        # and first auto-increment value are the statement's.
        session.last_insert_id = last_insert_id
        changes = sub.outcome.changes
        outcome.changes.extend(changes)
        outcome.trigger_statements.update({id(change): sub.outcome.trigger_statements.get(id(change), text) for change in changes})
        outcome.duplicates.extend(sub.outcome.duplicates)
        outcome.warnings.extend(sub.outcome.warnings)
        if outcome.insert_id is None:
            outcome.insert_id = sub.outcome.insert_id


class TriggerHost(RunHost):
    """A compound trigger body's host: its statements and expressions see the row's NEW and
    OLD values, its statements run as sub-statements, `SET NEW.col` changes the row."""

    def __init__(self, run: StatementRun, table: Table, trigger: TriggerDefinition, rows: Rows) -> None:
        super().__init__(run)
        self.table = table
        self.trigger = trigger
        self.rows = rows

    def run_statement(self, statement: Statement) -> None:
        if statement.kind not in ROW_STATEMENTS or statement.ast is None:
            raise not_supported(f"{statement.kind.value} in a trigger body")
        run_sub_statement(self.run, dataclasses.replace(statement, ast=_bound(statement.ast, self.table, self.rows)), statement.sql)

    def query(self, statement: Statement) -> list[tuple]:
        assert statement.ast is not None
        sub = self.run.sub_run(dataclasses.replace(statement, ast=_bound(statement.ast, self.table, self.rows)))
        sub.statement = with_stored_functions(sub, sub.statement)
        run_select(sub)
        return list(sub.outcome.rows or [])

    def evaluate(self, trees: list[exp.Expression]) -> list[object]:
        return evaluate_calling(self.run, [_bound(tree, self.table, self.rows) for tree in trees])

    def assign_row(self, column: str, value: object) -> None:
        values = list(self.rows[RowVersion.NEW] or ())
        values[self.table.column_index(column)] = value
        self.rows[RowVersion.NEW] = tuple(values)

    def clear_warnings(self) -> None:
        """The statement's own conditions stay: the trigger's handler clears only its own."""
