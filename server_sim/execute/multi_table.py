"""Multi-table UPDATE and DELETE: the join, its target tables, and the order rows change in.

Both servers run the join once (MySQL Query_result_update / Query_result_delete, MariaDB
multi_update / multi_delete). A row of a target table is changed once, however many join
rows reach it; an UPDATE takes its new values from the first join row that reaches it,
evaluated on the rows as they were before the statement. The first table of the join
order is changed while the join is scanned; the other targets are changed afterwards:
an UPDATE's from a temporary table filled in the order their rows were first reached,
table after table in the order the statement lists them; a DELETE's in row-id order,
table after table in join order. An UPDATE changes its first table during the scan only
when that is safe (safe_update_on_fly): no SET expression reads a column it writes, it is
not scanned by a primary key it writes, and it is not opened twice; otherwise it waits
its turn like the others.

The simulator has no optimizer: inner joins are scanned smallest table first (ties in the
order written), as the servers' cost model orders small tables without a better index;
with an outer join, in the order written. The scan is a nested loop, each table in its
engine's scan order.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from sqlglot import exp

from ..table import Column, Table
from ..duckdb_connection import quote
from ..errors import ErrorCode, SqlError, not_supported
from ..expressions import constant_value, is_constant
from ..mirror.joins import Joined
from ..statement import delete_list, from_clause, reference_nodes
from ..storage import ROW_ID
from .fast_path import FastPath
from .reads import refuse_self_reference
from .row_operations import RowUpdate, apply_update, delete_firing_triggers
from .run import StatementRun


@dataclass(eq=False)
class Reference:
    """A table of the statement's FROM clause, under the name the statement gives it."""

    node: exp.Table
    table: Table
    join: exp.Join | None  # the join that brings it in; None for the first table

    @property
    def name(self) -> str:
        return self.node.alias_or_name

    def is_named(self, name: str) -> bool:
        return self.name.lower() == name.lower()


@dataclass(eq=False)
class Target:
    """A table the statement changes, with an UPDATE's assignments to it."""

    reference: Reference
    assignments: list[tuple[Column, exp.Expression]] = field(default_factory=list)


def references(ast: exp.Update | exp.Delete, lookup: Callable[[exp.Table], Table]) -> list[Reference]:
    """The FROM clause's tables, each resolved; a name used twice is ER_NONUNIQ_TABLE."""
    first = from_clause(ast)
    joins = list(first.args.get("joins") or [])
    result: list[Reference] = []
    for node, join in zip(reference_nodes(ast), [None, *joins]):
        reference = Reference(node, lookup(node), join)
        if any(other.is_named(reference.name) for other in result):
            raise SqlError(ErrorCode.ER_NONUNIQ_TABLE, reference.name)
        result.append(reference)
    return result


def targets(ast: exp.Update | exp.Delete, tables: list[Reference]) -> list[Target]:
    """The tables the statement changes, in the order the FROM clause lists them."""
    found: dict[int, Target] = {}
    if isinstance(ast, exp.Update):
        for item in ast.expressions:
            if not isinstance(item, exp.EQ) or not isinstance(item.this, exp.Column):
                raise not_supported(f"assignment {item.sql(dialect='mysql')}")
            reference, column = resolve_column(item.this, tables)
            found.setdefault(id(reference), Target(reference)).assignments.append((column, item.expression))
    else:
        for node in delete_list(ast):
            reference = next((r for r in tables if r.is_named(node.name)), None)
            if reference is None:
                raise SqlError(ErrorCode.ER_UNKNOWN_TABLE, node.name, "MULTI DELETE")
            found.setdefault(id(reference), Target(reference))
    ordered = [found[id(reference)] for reference in tables if id(reference) in found]
    if len({id(target.reference.table) for target in ordered}) < len(ordered):
        raise not_supported("a multi-table statement that changes one table under two names")
    return ordered


def resolve_column(node: exp.Column, tables: list[Reference]) -> tuple[Reference, Column]:
    """The table and column a column reference names (1054 none, 1052 more than one)."""
    candidates = [r for r in tables if r.is_named(node.table)] if node.table else tables
    found = [(reference, column) for reference in candidates if (column := reference.table.find_column(node.name)) is not None]
    if not found:
        raise SqlError(ErrorCode.ER_BAD_FIELD_ERROR, node.sql(dialect="mysql"), "field list")
    if len(found) > 1:
        raise SqlError(ErrorCode.ER_NON_UNIQ_ERROR, node.name, "field list")
    return found[0]


def join_order(tables: list[Reference], row_counts: list[int]) -> list[Reference]:
    """Inner joins: fewest rows first (ties as written); an outer join keeps the order written."""
    if any(r.join is not None and r.join.side for r in tables):
        return list(tables)
    return [reference for _, _, reference in sorted(zip(row_counts, range(len(tables)), tables), key=lambda item: item[:2])]


def join_keyword(join: exp.Join) -> str:
    """The DuckDB join a FROM clause's join is: an inner or a left outer join."""
    if join.args.get("using"):
        raise not_supported("JOIN ... USING in a multi-table statement")
    side, kind = (join.side or "").upper(), (join.kind or "").upper()
    if side == "LEFT" and kind in ("", "OUTER"):
        return "LEFT JOIN"
    if not side and kind in ("", "INNER", "CROSS"):
        return "JOIN"
    raise not_supported(f"{' '.join(filter(None, (side, kind)))} JOIN in a multi-table statement")


def from_sql(tables: list[Reference], qualified: Callable[[Table], str], translate: Callable[[exp.Expression], str]) -> str:
    """The FROM clause in DuckDB SQL, over the stored tables (row ids included)."""
    first = tables[0]
    text = f"{qualified(first.table)} AS {quote(first.name)}"
    for reference in tables[1:]:
        join = reference.join
        assert join is not None
        on = join.args.get("on")
        condition = translate(on) if on is not None else "TRUE"
        text += f" {join_keyword(join)} {qualified(reference.table)} AS {quote(reference.name)} ON {condition}"
    return text


def joined(tables: list[Reference]) -> list[Joined]:
    """The FROM clause as the mirror's join takes it."""
    result = []
    for reference in tables:
        join = reference.join
        if join is None:
            result.append(Joined(reference.name, reference.table))
        else:
            result.append(Joined(reference.name, reference.table, join.args.get("on"), join_keyword(join) == "LEFT JOIN"))
    return result


def updated_during_scan(target: Target, first: Reference, tables: list[Reference], values: list[exp.Expression]) -> bool:
    """safe_update_on_fly: the first table of the join order is changed during the scan
    unless a SET expression reads a column it writes, its clustered primary key is written,
    or the statement opens it twice."""
    reference = target.reference
    if reference is not first or sum(r.table is reference.table for r in tables) > 1:
        return False
    written = {column.name.lower() for column, _ in target.assignments}
    primary = reference.table.primary_key
    if reference.table.engine.clustered and primary is not None and written & {c.lower() for c in primary.columns}:
        return False
    for expression in values:
        for node in expression.find_all(exp.Column):
            if node.find_ancestor(exp.Select) is not None:
                continue  # a subquery's own column
            if node.name.lower() in written and resolve_column(node, tables)[0] is reference:
                return False
    return True


def row_id_column(reference: Reference) -> str:
    return f"{quote(reference.name)}.{quote(ROW_ID)}"


class MultiTableRun:
    """One multi-table UPDATE or DELETE on one server."""

    def __init__(self, run: StatementRun) -> None:
        self.run = run
        ast = run.statement.ast
        assert isinstance(ast, (exp.Update, exp.Delete))
        self.ast = ast
        self.translator = run.translator()
        self.tables = references(ast, run.table)
        self.targets = targets(ast, self.tables)
        storage = run.storage
        self.order = join_order(self.tables, [storage.row_count(r.table) if r.table.engine.stores_rows else 0 for r in self.tables])
        for target in self.targets:
            refuse_self_reference(run, ast, target.reference.table, f"multi-table {'UPDATE' if isinstance(ast, exp.Update) else 'DELETE'}")

    def _join(self, expressions: list[exp.Expression]) -> list[tuple]:
        """Per join row: each table's row id, each target's columns, then `expressions`;
        from the storage's mirrors where the conditions and expressions allow, else DuckDB's."""
        storage = self.run.storage
        if not all(r.table.engine.stores_rows for r in self.tables):
            return []  # a BLACKHOLE table joins no row
        where = self.ast.args.get("where")
        rows = FastPath(self.run).join(
            joined(self.tables),
            [self.tables.index(r) for r in self.order],
            where.this if where is not None else None,
            [self.tables.index(t.reference) for t in self.targets],
            expressions,
        )
        if rows is not None:
            return rows
        selected = [row_id_column(r) for r in self.tables]
        for target in self.targets:
            selected += [f"{quote(target.reference.name)}.{quote(c.name)}" for c in target.reference.table.columns]
        selected += [self.translator.sql(e) for e in expressions]
        condition = f" WHERE {self.translator.condition_sql(where.this)}" if where is not None else ""
        order = ", ".join(storage.physical_order(r.table, r.name) for r in self.order)
        source = from_sql(self.tables, storage.qualified, self.translator.sql)
        return storage.query(f"SELECT {', '.join(selected)} FROM {source}{condition} ORDER BY {order}")

    def _reached(self, rows: list[tuple]) -> list[dict[int, tuple[tuple, tuple]]]:
        """Per target: row id -> (the row, the join row that reached it first), in the order reached."""
        reached: list[dict[int, tuple[tuple, tuple]]] = [{} for _ in self.targets]
        for row in rows:
            offset = len(self.tables)
            for index, target in enumerate(self.targets):
                width = len(target.reference.table.columns)
                row_id = row[self.tables.index(target.reference)]
                if row_id is not None and row_id not in reached[index]:
                    reached[index][row_id] = (tuple(row[offset : offset + width]), row)
                offset += width
        return reached

    def update(self) -> None:
        if self.ast.args.get("order") is not None or self.ast.args.get("limit") is not None:
            if not self.run.server.flavor.multi_table_update_order_limit_error:
                raise not_supported("multi-table UPDATE with ORDER BY or LIMIT")
            raise SqlError(ErrorCode.ER_WRONG_USAGE, "UPDATE", "ORDER BY" if self.ast.args.get("order") is not None else "LIMIT")
        values = [expression for target in self.targets for _, expression in target.assignments]
        computed = [e for e in values if not is_constant(e)]
        rows = self._join(computed)
        first_value = len(self.tables) + sum(len(t.reference.table.columns) for t in self.targets)
        reached = self._reached(rows)
        during_scan = [t for t in self.targets if updated_during_scan(t, self.order[0], self.tables, values)]
        sequence = during_scan + [t for t in self.targets if t not in during_scan]
        row_number = 0
        for target in sequence:
            table = target.reference.table
            for row_id, (before, join_row) in reached[self.targets.index(target)].items():
                results = iter(join_row[first_value:])
                new_values = {id(e): (constant_value(e) if is_constant(e) else next(results)) for e in values}
                after = list(before)
                for column, expression in target.assignments:
                    after[table.columns.index(column)] = new_values[id(expression)]
                row_number += 1
                apply_update(self.run, RowUpdate(table, row_id, before, after, target.assignments, row_number))

    def delete(self) -> None:
        rows = self._join([])
        reached = self._reached(rows)
        first = [t for t in self.targets if t.reference is self.order[0] and sum(r.table is t.reference.table for r in self.tables) == 1]
        later = [t for r in self.order for t in self.targets if t.reference is r and t not in first]
        for target in first + later:
            table = target.reference.table
            found = reached[self.targets.index(target)]
            row_ids = list(found) if target in first else self._in_row_id_order(table, list(found))
            for row_id in row_ids:
                delete_firing_triggers(self.run, table, row_id, found[row_id][0])

    def _in_row_id_order(self, table: Table, row_ids: list[int]) -> list[int]:
        """The rows a DELETE collected for later, in the order of their row ids: the engine's scan order."""
        if len(row_ids) < 2:
            return row_ids
        position = {row_id: index for index, (row_id, *_) in enumerate(self.run.storage.scan(table))}
        return sorted(row_ids, key=position.__getitem__)
