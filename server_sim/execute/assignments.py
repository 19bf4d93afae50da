"""SET clauses: an UPDATE's, and an INSERT's ON DUPLICATE KEY UPDATE, as (column,
expression) pairs, and the columns they write."""

from __future__ import annotations

from sqlglot import exp

from ..table import Column, Table
from ..errors import not_supported

Assignments = list[tuple[Column, exp.Expression]]


def assignments(table: Table, expressions: list[exp.Expression]) -> Assignments:
    """`SET a = expr, ...` as (column, expression) pairs."""
    pairs = []
    for item in expressions:
        if not isinstance(item, exp.EQ) or not isinstance(item.this, exp.Column):
            raise not_supported(f"assignment {item.sql(dialect='mysql')}")
        pairs.append((table.column(item.this.name), item.expression))
    return pairs


def sequential(pairs: Assignments, table: Table) -> Assignments:
    """MySQL evaluates single-table SET left to right: a later expression sees earlier new values."""
    result: Assignments = []
    replaced: dict[str, exp.Expression] = {}
    for column, expression in pairs:
        def substitute(node: exp.Expression) -> exp.Expression:
            if isinstance(node, exp.Column) and node.name.lower() in replaced and node.table in ("", table.name):
                return exp.Paren(this=replaced[node.name.lower()].copy())
            return node

        rewritten = expression.transform(substitute)  # a copy: the parse stays as it was
        replaced[column.name.lower()] = rewritten
        result.append((column, rewritten))
    return result


def update_write_set(table: Table, pairs: Assignments) -> frozenset[str]:
    """The columns an UPDATE writes: those it assigns and the ON UPDATE CURRENT_TIMESTAMP ones
    (MySQL COPY_INFO's UPDATE_OPERATION, MariaDB mark_default_fields_for_write(FALSE))."""
    return frozenset({column.name for column, _ in pairs} | {column.name for column in table.columns if column.on_update_current_timestamp})


def touch_on_update(table: Table, row: tuple, pairs: Assignments, timestamp: object) -> tuple:
    """A changed row's ON UPDATE CURRENT_TIMESTAMP columns not assigned explicitly take the statement time."""
    assigned = {column.name for column, _ in pairs}
    return tuple(
        timestamp if column.on_update_current_timestamp and column.name not in assigned else value
        for column, value in zip(table.columns, row)
    )
