"""Single-table UPDATE and DELETE, the single-table SELECT an INSERT ... SELECT reads, and
the join of a multi-table UPDATE or DELETE, answered from the storage's mirror of the
tables' rows: the fast path's entry points.

Asking DuckDB which rows a statement reaches, or what `v + 1` is for one row, costs half
a millisecond a statement. The conditions and SET expressions workloads mostly use
(`id = 3`, `v > 1`, `k IS NULL`, `s = 'a'`, `id IN (1, 2)`, `v = v + 1`) are evaluated
here in Python, exactly as the Translator's DuckDB SQL evaluates them: three-valued
logic, the columns' collation (server_sim/collation.py), MySQL's NULL order (NULL first
ascending), ties in the engine's scan order. Whatever is outside that subset, or cannot
be told exactly (text beyond ASCII, a number compared with a string, a result beyond the
column type's range), is `Declined`, at compile or at evaluation time, and DuckDB answers.

The parts live in server_sim/mirror (operands, the compiler, plans, joins); how each
function evaluates is the function library's (server_sim/functions).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from sqlglot import exp

from .table import Table
from .declined import Declined, none_when_declined
from .mirror.compiler import Compiler, Source, Subqueries, is_context_value
from .mirror.joins import Joined, NestedLoop, compile_conditions, join_sources, scanned, too_many_rows
from .operands import Context, Predicate, Values
from .mirror.plans import RowValues, ScanPlan, SelectPlan, cached, compile_scan, compile_select


def scan_plan(
    ast: exp.Update | exp.Delete, table: Table, alias: str, subqueries: Subqueries | None = None, rand: Callable[[], float] | None = None
) -> ScanPlan | None:
    """The compiled scan of a single-table UPDATE or DELETE, or None when DuckDB must run it.
    A condition with subqueries or RAND(), whose values are this run's, is compiled for this
    run; `rand` is the server's RAND()."""
    if subqueries or rand is not None:
        return none_when_declined(compile_scan)(ast, table, alias, subqueries, rand)
    return cached(ast, table, lambda: compile_scan(ast, table, alias))  # type: ignore[return-value]


@none_when_declined
def row_values(
    expressions: Sequence[exp.Expression], table: Table | None, alias: str = "", rand: Callable[[], float] | None = None, context: Context | None = None
) -> RowValues:
    """The compiled SET expressions (or, without a table, a VALUES row's), evaluated left
    to right, or None when DuckDB must evaluate them; `rand` is the server's RAND()."""
    compiler = Compiler([Source(alias, table)] if table is not None else [], rand=rand, context=context)
    return RowValues(tuple(compiler.operand(expression).value for expression in expressions))


@none_when_declined
def row_condition(condition: exp.Expression, table: Table, alias: str, rand: Callable[[], float] | None = None, context: Context | None = None) -> Predicate:
    """A WHERE compiled over one row of `table`, evaluated row by row as the statement
    reaches each (three-valued: None is UNKNOWN), or None when DuckDB must evaluate it."""
    return Compiler([Source(alias, table)], rand=rand, context=context).predicate(condition)


def select_plan(query: exp.Select, table: Table, context: Context | None = None) -> SelectPlan | None:
    """The compiled SELECT over `table` (its `select_source`), or None when DuckDB must run it.
    One that reads context values, which are this run's, is compiled for this run."""
    if context is not None and any(is_context_value(node) for node in query.walk()):
        return none_when_declined(compile_select)(query, table, context)
    return cached(query, table, lambda: compile_select(query, table))  # type: ignore[return-value]


@none_when_declined
def join_rows(
    tables: Sequence[Joined],
    order: Sequence[int],
    where: exp.Expression | None,
    targets: Sequence[int],
    expressions: Sequence[exp.Expression],
    mirrored: Sequence[dict[int, Values]],
) -> list[tuple]:
    """The rows of the join that `multi_table` asks DuckDB for, from the mirrors: per join
    row each table's row id (None for a LEFT JOIN's missing row), the columns of the
    `targets`, then `expressions`; ordered by the tables' scan orders, table after table
    in join `order` (positions in `tables`), as a nested loop reads them. None when the
    tables, conditions or expressions leave the subset evaluated here."""
    sources = join_sources(tables)
    if too_many_rows(mirrored):
        raise Declined
    compiler = Compiler(sources)
    conditions = compile_conditions(compiler, tables, order, where)
    values = [compiler.operand(expression).value for expression in expressions]
    return NestedLoop(tables, order, conditions, targets, values).run(scanned(tables, order, mirrored))

