"""The Python mirror's answers for one statement: what the storage's mirror of a table
answers in Python (a scan's rows, SET values, a single-table SELECT, a join) before DuckDB
is asked. Every question returns None when the mirror declines it, or when the server's
`fast_path` switch is off; the caller then asks DuckDB, which gives the same answer.

The mirror's functions are called here and nowhere else in the executor.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from sqlglot import exp

from ..table import Table
from ..declined import Declined
from ..errors import SqlError
from ..mirror.compiler import Subqueries
from ..mirror.joins import Joined
from ..mirror.plans import RowValues, select_source
from ..mirror_scan import join_rows, row_condition, row_values, scan_plan, select_plan
from ..operands import Context
from .run import StatementScope


class FastPath:
    """The mirror's answers within one statement's scope."""

    def __init__(self, scope: StatementScope) -> None:
        self.scope = scope
        self.enabled = scope.server.fast_path

    def answer(self, evaluate: Callable[[], list]) -> list | None:
        """What `evaluate` reads from the storage's mirror, or None where it declines; the
        RAND() values it drew are given back, as DuckDB then evaluates it all again."""
        session = self.scope.session
        seeds = (session.rand_seed1, session.rand_seed2)
        try:
            return evaluate()
        except Declined:
            session.rand_seed1, session.rand_seed2 = seeds
            return None

    def compiled(
        self, expressions: Sequence[exp.Expression], table: Table | None, alias: str = "", rand: bool = False, context: Context | None = None
    ) -> RowValues | None:
        """`expressions` compiled over a row of `table` (none: outside any row); with
        `rand`, RAND() draws from the running session's generator."""
        if not self.enabled:
            return None
        return row_values(expressions, table, alias, self.scope.session.next_random if rand else None, context)

    def row_condition(self, condition: exp.Expression, table: Table, alias: str, context: Context | None = None) -> Callable[[int], bool | None] | None:
        """`condition` over the mirror's row of a row id, evaluated when called (RAND() draws
        from the running session's generator); None when DuckDB must evaluate it. A row the
        mirror declines at evaluation raises Declined."""
        if not self.enabled:
            return None
        predicate = row_condition(condition, table, alias, self.scope.session.next_random, context)
        if predicate is None:
            return None
        storage = self.scope.storage

        def holds(row_id: int) -> bool | None:
            mirrored = storage.mirrored(table)
            if mirrored is None or row_id not in mirrored:
                raise Declined
            return predicate(mirrored[row_id])

        return holds

    def scan(self, ast: exp.Update | exp.Delete, table: Table, alias: str, limit: Callable[[], int | None]) -> list[tuple] | None:
        """The rows a single-table UPDATE or DELETE reaches, in order, from the mirror.
        `limit` is the statement's LIMIT, read once the plan's subset translates without error."""
        if not self.enabled:
            return None
        subqueries = self.mirrored_subqueries(ast)
        where = ast.args.get("where")
        rand = self.scope.session.next_random if where is not None and where.find(exp.Rand) is not None else None
        plan = scan_plan(ast, table, alias, subqueries, rand) if subqueries is not None else None
        if plan is None:
            return None
        count = limit()
        if not table.engine.stores_rows:
            return []
        mirrored = self.scope.storage.mirrored(table)
        return self.answer(lambda: plan.rows(mirrored, count)) if mirrored is not None else None

    def mirrored_select(self, query: exp.Expression, context: Context | None = None) -> list[list[object]] | None:
        """The rows of a single-table SELECT, in the engine's scan order, from the storage's
        mirror where Python evaluates the query exactly; None: DuckDB answers."""
        read = self.mirrored_read(query, context)
        return read[1] if read is not None else None

    def mirrored_read(self, query: exp.Expression, context: Context | None = None) -> tuple[Table, list[list[object]]] | None:
        """mirrored_select, with the table the query reads."""
        if not self.enabled:
            return None
        node = select_source(query)
        if node is None:
            return None
        try:
            table = self.scope.table(node)
        except SqlError:
            return None  # DuckDB's run of the query reports it
        if table.system is not None:
            return None  # filled for the session that reads it, not followed by a mirror
        plan = select_plan(query, table, context)  # type: ignore[arg-type]
        mirrored = self.scope.storage.mirrored(table) if plan is not None else None
        if mirrored is None:
            return None
        try:
            return table, plan.rows(mirrored)  # type: ignore[union-attr]
        except Declined:
            return None

    def mirrored_subqueries(self, ast: exp.Expression) -> Subqueries | None:
        """What each `IN (SELECT ...)` of the statement's condition reads, from the mirror;
        None when one of them is DuckDB's to run (and with it the whole condition)."""
        where = ast.args.get("where")
        subqueries: dict[int, tuple[Table, list[object]]] = {}
        for node in where.find_all(exp.In) if where is not None else ():
            query = node.args.get("query")
            if query is None:
                continue
            read = self.mirrored_read(query.this) if isinstance(query, exp.Subquery) else None
            if read is None:
                return None
            table, rows = read
            if any(len(row) != 1 for row in rows):
                return None  # DuckDB reports the column count
            subqueries[id(query.this)] = (table, [value for value, in rows])
        return subqueries

    def join(
        self, tables: list[Joined], order: list[int], where: exp.Expression | None, targets: list[int], expressions: list[exp.Expression]
    ) -> list[tuple] | None:
        """A multi-table statement's join rows from the mirrors (see mirror_scan.join_rows)."""
        if not self.enabled:
            return None
        mirrored = [self.scope.storage.mirrored(joined.table) for joined in tables]
        if any(rows is None for rows in mirrored):
            return None
        return join_rows(tables, order, where, targets, expressions, mirrored)  # type: ignore[arg-type]
