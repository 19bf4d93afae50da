"""Where a BIT column's value would be read as text: refused.

The storage holds a BIT value as its number (server_sim/bit_type.py), which is what the
server computes and compares with; but a BIT value stored into a string column is its
bytes (what SELECT shows). A statement that would store the number's digits instead is
refused with 1235: INSERT ... SELECT of a BIT column into a string column, UPDATE setting
a string column from one.
"""

from __future__ import annotations

from collections.abc import Iterable

from sqlglot import exp

from ..errors import not_supported
from ..table import Column, Table
from ..types import TypeFamily
from .run import StatementRun

_TEXT_FAMILIES = (TypeFamily.STRING, TypeFamily.BINARY, TypeFamily.JSON)


def refuse_bits_read_as_text(run: StatementRun, source: exp.Expression, columns: list[Column]) -> None:
    """INSERT ... SELECT: each target column with the SELECT's expression for it."""
    tables = [run.catalog.find(node.name, run.session.thread_id) for node in source.find_all(exp.Table)]
    bits = _bit_columns(tables)
    if not bits or not any(column.type.family in _TEXT_FAMILIES for column in columns):
        return
    if not isinstance(source, exp.Select):
        raise not_supported("INSERT ... SELECT of a UNION or subquery reading BIT columns into string columns")
    projections = list(source.expressions)
    if [type(p) for p in projections] == [exp.Star] and len(tables) == 1 and tables[0] is not None:
        projections = [exp.column(c.name) for c in tables[0].columns]  # SELECT * of one table
    _check(zip(columns, projections), bits)


def refuse_bit_assignments_as_text(table: Table, pairs: Iterable[tuple[Column, exp.Expression]]) -> None:
    """UPDATE ... SET: each assigned column with its expression."""
    bits = _bit_columns([table])
    if bits:
        _check(pairs, bits)


def _bit_columns(tables: Iterable[Table | None]) -> set[str]:
    return {column.key for table in tables if table is not None for column in table.columns if column.type.family is TypeFamily.BIT}


def _check(pairs: Iterable[tuple[Column, exp.Expression]], bits: set[str]) -> None:
    for column, expression in pairs:
        if column.type.family not in _TEXT_FAMILIES:
            continue
        named = {node.name.lower() for node in expression.find_all(exp.Column)}
        if named & bits or expression.find(exp.Star):
            raise not_supported(f"a BIT column's value into the string column `{column.name}` (its bytes)")
