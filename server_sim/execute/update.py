"""UPDATE of one table: the rows its scan reaches, in order, each given the SET values
computed from the row as it was (single-table SET is evaluated left to right). A
multi-table UPDATE is `multi_table`'s."""

from __future__ import annotations

from sqlglot import exp

from ..errors import Condition
from ..statement import is_multi_table
from .bit_values import refuse_bit_assignments_as_text
from .assignments import assignments, sequential
from .fast_path import FastPath
from .multi_table import MultiTableRun
from .reads import RowExpressions, impossible_where, scan, subquery_reads
from .row_operations import RowUpdate, apply_update, settle_conditions
from .run import StatementRun


def run_update(run: StatementRun) -> None:
    ast = run.statement.ast
    assert isinstance(ast, exp.Update)
    if is_multi_table(ast):
        MultiTableRun(run).update()
        return
    table = run.table(ast.this)
    pairs = assignments(table, ast.expressions)
    if impossible_where(run, table, ast):
        run.outcome.executed = False
        return
    translator = run.translator()
    expressions = sequential(pairs, table)
    refuse_bit_assignments_as_text(table, expressions)
    alias = ast.this.alias or table.name
    set_expressions = [e for _, e in expressions]
    compiled = FastPath(run).compiled(set_expressions, table, alias, rand=True, context=translator.rewrite)
    set_values = RowExpressions(run, translator, table, alias, set_expressions, compiled)
    rows = scan(run, ast, table)
    # A SET subquery reading the table (where the flavor allows it) sees it unchanged.
    computed = [_values_of(run, set_values, row[0]) for row in rows] if subquery_reads(set_expressions, table) else None
    for row_number, (row_id, *old) in enumerate(rows, start=1):
        values = list(old)
        new, raised = computed[row_number - 1] if computed is not None else _values_of(run, set_values, row_id)
        settle_conditions(run, table, row_number, raised)
        for (column, _), value in zip(expressions, new):
            values[table.columns.index(column)] = value
        apply_update(run, RowUpdate(table, row_id, tuple(old), values, pairs, row_number))


def _values_of(run: StatementRun, set_values: RowExpressions, row_id: int) -> tuple[list[object], list[Condition]]:
    """A row's SET values and the conditions computing them raised."""
    with run.server.collecting_conditions() as raised:
        values = set_values.of(row_id)
    return values, raised
