"""DELETE from one table: the rows its scan reaches, in order, each between the table's
DELETE triggers. A multi-table DELETE is `multi_table`'s."""

from __future__ import annotations

from sqlglot import exp

from ..statement import is_multi_table
from ..functions.stored_body import changing_calls
from .multi_table import MultiTableRun
from .per_row_calls import one_table_delete
from .reads import impossible_where, scan
from .row_operations import delete_firing_triggers
from .run import StatementRun


def run_delete(run: StatementRun) -> None:
    ast = run.statement.ast
    assert isinstance(ast, exp.Delete)
    if is_multi_table(ast):
        if not (one_table_delete(ast) and changing_calls(ast)):
            MultiTableRun(run).delete()
            return
        ast = ast.copy()
        ast.set("tables", None)  # the single-table DELETE, which calls the function row by row
    table = run.table(ast.this)
    if impossible_where(run, table, ast):
        run.outcome.executed = False
        return
    for row_id, *old in scan(run, ast, table):
        delete_firing_triggers(run, table, row_id, tuple(old))
