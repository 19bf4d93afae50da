"""The storage's write-back: the row changes the mirror holds ahead of DuckDB, kept as
their net effect per table, and the few statements that give them to DuckDB.

Sending each change as it happens would cost half a millisecond a row; a table's changes
reach DuckDB, as one DELETE, one UPDATE and one INSERT at most (of many rows, in parts),
before anything reads it with SQL.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field

from .table import Table
from .collation import without_collation
from .duckdb_connection import quote
from .expressions import HIDDEN_ROW_ID as ROW_ID

@dataclass
class Unwritten:
    """A table's row changes DuckDB has not received yet, as their net effect: the rows to
    delete, the rows to update in place and the rows to append, in that order, whose values
    the mirror holds. DuckDB keeps a row it updates where it is and puts a row it inserts
    last, as the mirror does, so the two list rows in the same order afterwards."""

    table: Table
    removed: set[int] = field(default_factory=set)  # rows DuckDB holds that were deleted
    updated: set[int] = field(default_factory=set)  # rows DuckDB holds whose values changed
    appended: dict[int, None] = field(default_factory=dict)  # rows DuckDB lacks, in insertion order

    def insert(self, row_id: int) -> None:
        self.appended[row_id] = None

    def update(self, row_id: int) -> None:
        if row_id not in self.appended:
            self.updated.add(row_id)

    def delete(self, row_id: int) -> None:
        if row_id in self.appended:
            del self.appended[row_id]  # DuckDB never had it
        else:
            self.removed.add(row_id)
            self.updated.discard(row_id)


# Rows per statement when DuckDB receives a table's changes: each row is a parameter per column.
_ROWS_PER_STATEMENT = 1000


def _parts(row_ids: Iterable[int]) -> Iterator[list[int]]:
    """The row ids in order, a statement's worth at a time."""
    ids = list(row_ids)
    for start in range(0, len(ids), _ROWS_PER_STATEMENT):
        yield ids[start : start + _ROWS_PER_STATEMENT]


def stored_columns(table: Table) -> str:
    """The DuckDB table's column list: the row id, then the catalog's columns."""
    return ", ".join([quote(ROW_ID), *(quote(c.name) for c in table.columns)])


def column_names(table: Table) -> tuple[str, ...]:
    return tuple(column.key for column in table.columns)




Execute = Callable[[str, Sequence[object]], object]


def create_table_sql(table: Table, stored: str) -> str:
    """The DuckDB table for a catalog table: the row id, then its columns."""
    columns = ", ".join(f"{quote(c.name)} {c.type.duckdb_type}" for c in table.columns)
    return f"CREATE TABLE {stored} ({quote(ROW_ID)} BIGINT, {columns})"


def write_changes(execute: Execute, stored: str, changes: Unwritten, rows: dict[int, tuple]) -> None:
    """Give DuckDB's table `stored` a table's unwritten changes, whose values `rows` (the
    mirror) holds: its deletes, its updates in place, then its appended rows."""
    table = changes.table
    for ids in _parts(changes.removed):
        execute(f"DELETE FROM {stored} WHERE {quote(ROW_ID)} IN ({', '.join('?' for _ in ids)})", ids)
    marks = "(" + ", ".join("?" for _ in range(len(table.columns) + 1)) + ")"
    for part in _parts(changes.updated):
        if len(part) == 1:
            [row_id] = part
            assignments = ", ".join(f"{quote(c.name)} = ?" for c in table.columns)
            execute(f"UPDATE {stored} SET {assignments} WHERE {quote(ROW_ID)} = ?", [*rows[row_id], row_id])
            continue
        # One UPDATE joined to the new rows; the casts keep VALUES from choosing
        # column types of its own.
        assignments = ", ".join(f"{quote(c.name)} = CAST(new.{quote(c.name)} AS {without_collation(c.type.duckdb_type)})" for c in table.columns)
        execute(
            f"UPDATE {stored} SET {assignments} FROM (VALUES {', '.join([marks] * len(part))}) AS new({stored_columns(table)}) "
            f"WHERE {stored}.{quote(ROW_ID)} = new.{quote(ROW_ID)}",
            [v for row_id in part for v in (row_id, *rows[row_id])],
        )
    for part in _parts(changes.appended):
        execute(
            f"INSERT INTO {stored} ({stored_columns(table)}) VALUES {', '.join([marks] * len(part))}",
            [v for row_id in part for v in (row_id, *rows[row_id])],
        )
