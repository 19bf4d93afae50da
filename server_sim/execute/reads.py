"""What a statement reads: expression values, the rows an UPDATE or DELETE reaches, a
SELECT's rows in scan order. The mirror answers first where it can (`fast_path`), DuckDB
otherwise; both give the same answer."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

from sqlglot import exp

from ..table import Table
from ..duckdb_connection import quote
from ..errors import ErrorCode, SqlError, not_supported
from ..expressions import Translator, constant_value, is_constant
from ..mirror.plans import RowValues
from ..storage import ROW_ID
from ..functions.context import literal
from ..functions.stored_body import call_body, changing_calls
from .fast_path import FastPath
from .per_row_calls import where_scans_every_row
from .run import StatementScope


def evaluate(scope: StatementScope, expressions: list[exp.Expression]) -> list[object]:
    """Values of expressions outside any table's row: constants, what the mirror's
    compiler evaluates (`FLOOR(RAND() * 4)`) and what translates to a
    constant (`@@server_id`, `CURRENT_USER()`) directly; the rest in one SELECT."""
    if scope.catalog.routines and any(changing_calls(e) for e in expressions):
        expressions = [_made_outside_rows(scope, e) for e in expressions]
    values = [constant_value(e) if is_constant(e) else None for e in expressions]
    pending = [i for i, e in enumerate(expressions) if not is_constant(e)]
    if not pending:
        return values
    if any(aggregates(expressions[index]) for index in pending):
        raise SqlError(ErrorCode.ER_INVALID_GROUP_FUNC_USE)  # no rows to aggregate over
    fast = FastPath(scope)
    compiled = fast.compiled([expressions[index] for index in pending], None, rand=True)
    found = fast.answer(lambda: compiled.of(())) if compiled is not None else None
    if found is not None:
        for index, value in zip(pending, found):
            values[index] = value
        return values
    translator = scope.translator()
    translated = {index: translator.translate(expressions[index]) for index in pending}
    for index, tree in list(translated.items()):
        if is_constant(tree):
            values[index] = constant_value(tree)
            del translated[index]
    if translated:
        projection = ", ".join(tree.sql(dialect="duckdb", copy=False) for tree in translated.values())
        reads = any(expressions[index].find(exp.Table) is not None for index in translated)
        row = scope.storage.query(f"SELECT {projection}", reads_tables=reads)[0]
        for index, value in zip(translated, row):
            values[index] = value
    return values


def aggregates(expression: exp.Expression) -> bool:
    """An aggregate of the expression's own (one inside a subquery aggregates that query's rows)."""
    walk = expression.walk(prune=lambda node: isinstance(node, (exp.Subquery, exp.Select)))
    return any(isinstance(node, exp.AggFunc) for node in walk)


@dataclass
class RowExpressions:
    """Expressions over one table's rows (an UPDATE's SET values, ON DUPLICATE KEY UPDATE's):
    constants directly, `compiled` (the same expressions compiled by the mirror) over the
    mirror's row where it can, else one SELECT of the row."""

    scope: StatementScope
    translator: Translator
    table: Table
    alias: str
    expressions: list[exp.Expression]
    compiled: RowValues | None
    changing: bool = field(init=False)  # whether they call a stored function that changes data

    def __post_init__(self) -> None:
        # Looked for once, not per row, and only where a stored function exists.
        self.changing = bool(self.scope.catalog.routines) and any(changing_calls(e) for e in self.expressions)

    def of(self, row_id: int) -> list[object]:
        expressions, table = self.expressions, self.table
        if self.changing:
            made = [calls_made(self.scope, self.translator, table, self.alias, e, row_id) for e in expressions]
            compiled = FastPath(self.scope).compiled(made, table, self.alias, rand=True, context=self.translator.rewrite)
            return RowExpressions(self.scope, self.translator, table, self.alias, made, compiled).of(row_id)
        if all(is_constant(e) for e in expressions):
            return [constant_value(e) for e in expressions]
        storage = self.scope.storage
        compiled = self.compiled
        mirrored = storage.mirrored(table) if compiled is not None else None
        if mirrored is not None and row_id in mirrored:
            found = FastPath(self.scope).answer(lambda: compiled.of(mirrored[row_id]))  # type: ignore[union-attr]
            if found is not None:
                return found
        projection = ", ".join(self.translator.sql(e) for e in expressions)
        sql = f"SELECT {projection} FROM {storage.qualified(table)} AS {quote(self.alias)} WHERE {quote(ROW_ID)} = ?"
        return list(storage.query(sql, [row_id])[0])


def scan(scope: StatementScope, ast: exp.Update | exp.Delete, table: Table) -> list[tuple]:
    """The rows an UPDATE or DELETE reaches, in the order it reaches them: from the
    storage's mirror where the statement's condition and order allow, else from DuckDB."""
    refuse_self_reference(scope, ast, table, "UPDATE" if isinstance(ast, exp.Update) else "DELETE")
    alias = ast.this.alias or table.name
    where = ast.args.get("where")
    if where is not None and scope.catalog.routines and changing_calls(where):
        return calling_scan(scope, ast, table, alias)
    found = FastPath(scope).scan(ast, table, alias, lambda: scan_limit(ast))
    if found is not None:
        return found
    translator = scope.translator()
    condition = translator.condition_sql(where.this) if where is not None else ""
    order_node = ast.args.get("order")
    storage = scope.storage
    physical = storage.physical_order(table, alias)
    order = physical
    if order_node is not None:
        order = ", ".join(translator.condition_sql(item) for item in order_node.expressions) + ", " + physical
    limit = scan_limit(ast)
    if not table.engine.stores_rows:
        return []
    return storage.rows(table, condition, order, limit, alias=alias)


def calling_scan(scope: StatementScope, ast: exp.Update | exp.Delete, table: Table, alias: str) -> Iterator[tuple]:
    """The rows of a scan whose WHERE calls a stored function that changes data: every row
    of the table in its scan order, the WHERE evaluated for each as the statement reaches
    it (after the rows before it were changed), as the server's table scan does."""
    where = ast.args["where"].this
    for clause in ("order", "limit"):
        if ast.args.get(clause):
            raise not_supported(f"a stored function that changes data, called in a WHERE beside {clause.upper()} (the server reads the rows it sorts or counts first)")
    if not where_scans_every_row(where, table, alias):
        raise not_supported("a stored function that changes data, called in a WHERE an index could serve (the server calls it for the rows the index reaches)")
    if not table.engine.stores_rows:
        return iter(())
    rows = scope.storage.rows(table, "", scope.storage.physical_order(table, alias), None, alias=alias)
    translator = scope.translator()
    return (row for row in rows if _holds(scope, translator, table, alias, where, row[0]))


def _holds(scope: StatementScope, translator: Translator, table: Table, alias: str, where: exp.Expression, row_id: int) -> bool:
    """Whether the row meets the WHERE, its data-changing calls made first for it."""
    condition = calls_made(scope, translator, table, alias, where, row_id)
    fast = FastPath(scope)
    holds = fast.row_condition(condition, table, alias, translator.rewrite)
    found = fast.answer(lambda: [holds(row_id)]) if holds is not None else None
    if found is not None:
        return bool(found[0])
    storage = scope.storage
    sql = f"SELECT 1 FROM {storage.qualified(table)} AS {quote(alias)} WHERE {quote(ROW_ID)} = ? AND ({translator.condition_sql(condition)})"
    return bool(storage.query(sql, [row_id]))


def calls_made(scope: StatementScope, translator: Translator, table: Table, alias: str, tree: exp.Expression, row_id: int) -> exp.Expression:
    """`tree` with each call of a stored function that changes data made for one row, left
    to right (its arguments read from the row), and replaced by its result. The body runs
    here, outside any query of DuckDB's, between the rows the statement writes."""

    def arguments_of(arguments: list[exp.Expression]) -> list[object]:
        return RowExpressions(scope, translator, table, alias, arguments, FastPath(scope).compiled(arguments, table, alias, context=translator.rewrite)).of(row_id)

    return _made(tree, arguments_of)


def _made_outside_rows(scope: StatementScope, tree: exp.Expression) -> exp.Expression:
    """calls_made for an expression outside any table's row (a VALUES row's)."""
    return _made(tree, lambda arguments: evaluate(scope, arguments))


def _made(tree: exp.Expression, arguments_of: Callable[[list[exp.Expression]], list[object]]) -> exp.Expression:
    if not changing_calls(tree):
        return tree
    made = tree.copy()  # its calls' meta (the runner) come along
    calls = {id(node) for node in changing_calls(made)}
    for node in list(made.walk(bfs=False)):  # depth first: the order the server evaluates them
        if id(node) in calls:
            result = literal(call_body(node, arguments_of(list(node.expressions))))
            if node is made:
                return result
            node.replace(result)
    return made


def scan_limit(ast: exp.Update | exp.Delete) -> int | None:
    """An UPDATE's or DELETE's LIMIT, which must be a constant."""
    limit_node = ast.args.get("limit")
    if limit_node is None:
        return None
    limit_value = limit_node.expression if limit_node.expression is not None else limit_node.this
    if not is_constant(limit_value):
        raise not_supported("a LIMIT that is not a constant")
    return int(constant_value(limit_value))  # type: ignore[arg-type]


def subquery_reads(expressions: list[exp.Expression], table: Table) -> bool:
    """Whether a subquery among `expressions` reads `table`."""
    name = table.name.lower()
    return any(node.name.lower() == name for e in expressions for q in e.find_all(exp.Select) for node in q.find_all(exp.Table))


def refuse_self_reference(scope: StatementScope, ast: exp.Expression, table: Table, form: str) -> None:
    """ER_UPDATE_TABLE_USED: a subquery may not read the table being changed, unless the
    flavor lets this form of statement (`UPDATE`, `DELETE`, `multi-table UPDATE`) do so;
    its subqueries then see the table as it was before any row changed."""
    if form not in scope.server.flavor.target_in_subquery and subquery_reads([ast], table):
        raise SqlError(ErrorCode.ER_UPDATE_TABLE_USED, table.name)


def impossible_where(scope: StatementScope, table: Table, ast: exp.Update | exp.Delete) -> bool:
    """A WHERE on a table its engine knows to be empty: the server stops at optimization."""
    if not table.engine.exact_row_count or ast.args.get("where") is None:
        return False
    return not table.engine.stores_rows or scope.storage.is_empty(table)


def in_scan_order(scope: StatementScope, query: exp.Expression) -> exp.Expression:
    """A single-table SELECT without ORDER BY returns rows in the engine's scan order
    (InnoDB: primary key), which decides what INSERT ... SELECT and LIMIT see."""
    if not isinstance(query, exp.Select) or query.args.get("order") or query.args.get("joins") or query.args.get("group"):
        return query
    if query.find(exp.AggFunc) is not None or query.args.get("distinct") or query.find(exp.Window) is not None:
        return query  # a window's sort, not the scan, orders the rows (refuse_unordered_windows)
    source = query.args.get("from_")
    node = source.this if source is not None else None
    if not isinstance(node, exp.Table) or not isinstance(node.this, exp.Identifier):
        return query
    try:
        columns = scope.table(node).scan_order()
    except SqlError:
        return query  # an unknown table fails with its own error when the query runs
    if not columns:
        return query
    alias = node.alias_or_name
    return query.copy().order_by(*(exp.column(name, table=alias, quoted=True) for name in columns), copy=False)
