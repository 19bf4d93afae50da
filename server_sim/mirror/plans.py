"""Compiled plans of single-table statements: which rows a scan reaches, in which order,
and the values a SET list or a select list computes for each.

Rows are ordered as the translation's SQL orders them: MySQL's NULL order (NULL first
ascending), text under the collation, ties in the engine's scan order; where DuckDB's
order could differ (a NULL key, ties a SELECT returns) the plan declines.
"""

from __future__ import annotations

import operator
from collections.abc import Callable
from dataclasses import dataclass

from sqlglot import exp

from ..table import Table
from ..collation import ordered_key, text_key
from ..declined import Declined, none_when_declined
from ..types import TypeFamily
from .compiler import Compiler, Source, Subqueries, is_comparison
from ..operands import Context, Kind, Predicate, Value, Values


@dataclass(frozen=True)
class SortKey:
    """One ORDER BY or scan-order column: its position, whether the collation orders it."""

    index: int
    text: bool
    descending: bool = False


@dataclass(frozen=True)
class ScanPlan:
    """Which rows of one table a single-table UPDATE, DELETE or SELECT reaches, in which order."""

    condition: Predicate | None
    order: tuple[SortKey, ...]  # ORDER BY, MySQL's NULL order
    physical: tuple[SortKey, ...]  # the engine's scan order (InnoDB: primary key), then row id
    # UPDATE and DELETE order by ORDER BY, then scan order, then row id. A SELECT is ordered
    # by its ORDER BY alone, or by the scan order `Executor.in_scan_order` gives it: rows that
    # leaves unordered come in DuckDB's storage order, which the mirror's order follows (a
    # row an undone DELETE puts back comes last in both), and ORDER BY's ties, which DuckDB's
    # sort puts in an order of its own, are declined.
    by_row_id: bool = True

    def rows(self, mirrored: dict[int, Values], limit: int | None) -> list[tuple]:
        """(row id, *values) of the matching rows, as `Storage.rows` would give them."""
        condition = self.condition
        matched = [(row_id, values) for row_id, values in mirrored.items() if condition is None or condition(values) is True]
        matched.sort(key=self._scan_position)  # stable: a SELECT's rows stay in the mirror's order
        for sort in reversed(self.order):
            # Stable sorts, last key first; NULL is the smallest value (MySQL's order).
            matched.sort(key=lambda item, s=sort: ordered_key(item[1][s.index], s.text), reverse=sort.descending)
        if self.order and not self.by_row_id:
            # Ties matter among the rows returned and at the LIMIT's edge.
            seen = matched if limit is None else matched[: limit + 1]
            keys = [tuple(ordered_key(values[s.index], s.text) for s in self.order) for _, values in seen]
            if any(first == second for first, second in zip(keys, keys[1:])):
                raise Declined
        if limit is not None:
            matched = matched[:limit]
        return [(row_id, *values) for row_id, values in matched]

    def _scan_position(self, item: tuple[int, Values]) -> tuple:
        """Where the engine's scan meets a row: its scan-order key, then its row id."""
        values = item[1]
        key = []
        for sort in self.physical:
            value = values[sort.index]
            if value is None:
                raise Declined  # a primary key holds no NULL; DuckDB orders what it finds
            key.append(text_key(value) if sort.text else value)
        if self.by_row_id:
            key.append(item[0])
        return tuple(key)


def _sort_key(table: Table, name: str, descending: bool = False) -> SortKey:
    index = table.column_index(name)
    family = table.columns[index].type.family
    if family not in (TypeFamily.INTEGER, TypeFamily.DECIMAL, TypeFamily.STRING):
        raise Declined
    return SortKey(index, family is TypeFamily.STRING, descending)


@none_when_declined
def table_scan(table: Table) -> ScanPlan:
    """Every row of the table in the engine's scan order, or None when DuckDB must order
    them (a primary key on a type compared here only for equality)."""
    return ScanPlan(None, (), tuple(_sort_key(table, name) for name in table.scan_order()))


def compile_scan(
    ast: exp.Update | exp.Delete | exp.Select, table: Table, alias: str, subqueries: Subqueries | None = None, rand: Callable[[], float] | None = None
) -> ScanPlan:
    """The scan of a statement's WHERE and ORDER BY over `table` (Declined: DuckDB's)."""
    where = ast.args.get("where")
    if rand is not None and where is not None and not _rand_once_per_row(where.this):
        rand = None
    compiler = Compiler([Source(alias, table)], subqueries, rand)
    condition = compiler.predicate(where.this) if where is not None else None
    order: list[SortKey] = []
    order_node = ast.args.get("order")
    for item in order_node.expressions if order_node is not None else []:
        if not isinstance(item, exp.Ordered) or not isinstance(item.this, exp.Column):
            raise Declined
        descending = bool(item.args.get("desc"))
        if bool(item.args.get("nulls_first")) == descending:
            raise Declined  # not MySQL's NULL order, which the translation keeps
        operand = compiler.operand(item.this)  # resolves the column as DuckDB would
        if operand.kind not in (Kind.NUMBER, Kind.TEXT):
            raise Declined
        order.append(_sort_key(table, item.this.name, descending))
    physical = tuple(_sort_key(table, name) for name in table.scan_order())
    return ScanPlan(condition, tuple(order), physical, by_row_id=not isinstance(ast, exp.Select))


def _rand_once_per_row(condition: exp.Expression) -> bool:
    """Whether DuckDB calls RAND() exactly once for each row the condition is tested on: it
    is one comparison with one RAND() in it. AND, OR, NOT and IN lists are left to DuckDB,
    which may reorder or skip their parts for some rows."""
    while isinstance(condition, exp.Paren):
        condition = condition.this
    return is_comparison(condition) and len(list(condition.find_all(exp.Rand))) == 1


# Compiled plans by statement tree and table: a statement's parse is shared by the servers
# that run its text, and each scans with it. The tree and the table stay referenced, so
# their ids are not reused while an entry lives; an ALTER gives the table new column and
# key lists, which the entry checks.
_PLANS: dict[tuple[int, int], tuple[exp.Expression, Table, list, list, object]] = {}
_PLANS_LIMIT = 2048


def cached(ast: exp.Expression, table: Table, compile_plan: Callable[[], object]) -> object:
    """The plan compiled for this tree and table (None: declined), compiled on first use."""
    key = (id(ast), id(table))
    entry = _PLANS.get(key)
    if entry is not None and entry[0] is ast and entry[1] is table and entry[2] is table.columns and entry[3] is table.keys:
        return entry[4]
    try:
        plan = compile_plan()
    except Declined:
        plan = None
    if len(_PLANS) >= _PLANS_LIMIT:
        _PLANS.clear()
    _PLANS[key] = (ast, table, table.columns, table.keys, plan)
    return plan


@dataclass(frozen=True)
class RowValues:
    """SET expressions of one statement, evaluated against one row's values."""

    values: tuple[Value, ...]

    def of(self, row: Values) -> list[object]:
        return [value(row) for value in self.values]


# The parts a SELECT answered here may have; any other (DISTINCT, GROUP BY, joins, OFFSET,
# locking clauses, hints, ...) is DuckDB's.
_SELECT_PARTS = frozenset({"expressions", "from_", "where", "order", "limit"})


@dataclass(frozen=True)
class SelectPlan:
    """A single-table SELECT: the rows it reads, in the order it returns them, and its values."""

    scan: ScanPlan
    items: RowValues
    limit: int | None

    def rows(self, mirrored: dict[int, Values]) -> list[list[object]]:
        return [self.items.of(row[1:]) for row in self.scan.rows(mirrored, self.limit)]


def select_source(query: exp.Expression) -> exp.Table | None:
    """The one catalog table a SELECT reads, where it has no other part than a select list,
    WHERE, ORDER BY and a constant LIMIT; else None."""
    if not isinstance(query, exp.Select) or _other_parts(query, _SELECT_PARTS):
        return None
    source = query.args.get("from_")
    node = source.this if source is not None else None
    if not isinstance(node, exp.Table) or not isinstance(node.this, exp.Identifier) or _other_parts(node, {"this", "db", "alias"}):
        return None
    alias = node.args.get("alias")
    if alias is not None and alias.columns:
        return None
    return node


def _other_parts(node: exp.Expression, parts: frozenset[str] | set[str]) -> bool:
    """Whether the node has a part besides `parts` (sqlglot keeps absent parts as None)."""
    return any(value for name, value in node.args.items() if name not in parts)


def compile_select(query: exp.Select, table: Table, context: Context | None = None) -> SelectPlan:
    """The SELECT over `table` its `select_source` found (Declined: DuckDB's)."""
    node = query.args["from_"].this
    compiler = Compiler([Source(node.alias_or_name, table)], context=context)
    items: list[Value] = []
    for item in query.expressions:
        if isinstance(item, exp.Star):
            items.extend(operator.itemgetter(index) for index in range(len(table.columns)))
        else:
            items.append(compiler.operand(item).value)  # an Alias is declined: ORDER BY could mean it
    limit_node = query.args.get("limit")
    limit = None
    if limit_node is not None:
        count = limit_node.expression
        if _other_parts(limit_node, {"expression"}) or not isinstance(count, exp.Literal) or count.is_string or not count.this.isdigit():
            raise Declined
        limit = int(count.this)
    return SelectPlan(compile_scan(query, table, node.alias_or_name), RowValues(tuple(items)), limit)
