"""The join of a multi-table UPDATE or DELETE, read from the mirrors as DuckDB's nested
loop would read it: table after table in join order, each in its scan order."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from sqlglot import exp

from ..table import Table
from ..declined import Declined
from .compiler import Compiler, Source
from ..operands import Predicate, Value, Values
from .plans import table_scan

# Join rows beyond which a nested loop in Python costs more than DuckDB's join.
JOIN_ROWS_LIMIT = 20_000


@dataclass(frozen=True)
class Joined:
    """A table of a multi-table statement's FROM clause, in the order written."""

    alias: str
    table: Table
    on: exp.Expression | None = None  # the ON of the join that brings it in
    outer: bool = False  # brought in by LEFT JOIN


@dataclass(frozen=True)
class JoinConditions:
    """A join's conditions compiled: the filters of the finished join row (WHERE and inner
    joins' ONs) and each LEFT JOIN's ON, tested as its table is reached."""

    filters: list[Predicate]
    level_tests: dict[int, Predicate]


def join_sources(tables: Sequence[Joined]) -> list[Source]:
    """The tables as the join row holds them: each one's columns after the previous one's."""
    sources, offset = [], 0
    for table in tables:
        sources.append(Source(table.alias, table.table, offset))
        offset += len(table.table.columns)
    return sources


def compile_conditions(compiler: Compiler, tables: Sequence[Joined], order: Sequence[int], where: exp.Expression | None) -> JoinConditions:
    """An inner join's ON filters the finished join row as WHERE does; an outer join's is
    tested as its table is reached, on the tables before it (any other is DuckDB's case)."""
    filters = [compiler.predicate(where)] if where is not None else []
    level_tests: dict[int, Predicate] = {}
    for position, table in enumerate(tables):
        if table.on is None:
            continue
        compiler.used = set()
        test = compiler.predicate(table.on)
        if not table.outer:
            filters.append(test)
        elif compiler.used <= set(range(position + 1)) and list(order) == list(range(len(tables))):
            level_tests[position] = test
        else:
            raise Declined
    return JoinConditions(filters, level_tests)


def too_many_rows(mirrored: Sequence[dict[int, Values]]) -> bool:
    """More join rows than a nested loop in Python reads faster than DuckDB joins them."""
    return math.prod(len(rows) + 1 for rows in mirrored) > JOIN_ROWS_LIMIT


def scanned(tables: Sequence[Joined], order: Sequence[int], mirrored: Sequence[dict[int, Values]]) -> list[list[tuple[int, Values]]]:
    """Each table's (row id, values), in join order, each in its scan order."""
    scans = []
    for position in order:
        plan = table_scan(tables[position].table)
        if plan is None:
            raise Declined
        scans.append([(row_id, tuple(values)) for row_id, *values in plan.rows(mirrored[position], None)])
    return scans


class NestedLoop:
    """The join rows, as a nested loop over the scans in join order produces them: per row
    each table's row id (None for a LEFT JOIN's missing row), the `targets`' columns, then
    the `values` computed on the join row."""

    def __init__(self, tables: Sequence[Joined], order: Sequence[int], conditions: JoinConditions, targets: Sequence[int], values: Sequence[Value]) -> None:
        self.tables, self.order, self.conditions, self.targets, self.values = tables, order, conditions, targets, values
        self.missing = [tuple(None for _ in table.table.columns) for table in tables]
        self.parts: list[tuple[int | None, Values]] = [(None, row) for row in self.missing]
        self.result: list[tuple] = []

    def run(self, scans: list[list[tuple[int, Values]]]) -> list[tuple]:
        self.scans = scans
        self._walk(0)
        return self.result

    def _flat(self) -> Values:
        return tuple(value for _, row in self.parts for value in row)

    def _emit(self) -> None:
        row, parts = self._flat(), self.parts
        if all(test(row) is True for test in self.conditions.filters):
            ids = (row_id for row_id, _ in parts)
            columns = (value for target in self.targets for value in parts[target][1])
            self.result.append((*ids, *columns, *(value(row) for value in self.values)))

    def _walk(self, level: int) -> None:
        if level == len(self.order):
            self._emit()
            return
        position, parts = self.order[level], self.parts
        test = self.conditions.level_tests.get(position)
        reached = False
        for item in self.scans[level]:
            parts[position] = item
            if test is None or test(self._flat()) is True:
                reached = True
                self._walk(level + 1)
        if self.tables[position].outer and not reached:
            parts[position] = (None, self.missing[position])
            self._walk(level + 1)
        parts[position] = (None, self.missing[position])
