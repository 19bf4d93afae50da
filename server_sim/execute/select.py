"""SELECT: DuckDB runs the translated query, rows in the engine's scan order where the
query leaves the order open; a SELECT of expressions alone (no FROM, no clause) is
evaluated as INSERT's VALUES are, the mirror's compiler first. FOUND_ROWS() and
ROW_COUNT() follow it."""

from __future__ import annotations

from sqlglot import exp

from .reads import evaluate, in_scan_order
from .run import StatementRun

# The only arguments a SELECT of expressions alone has.
_EXPRESSIONS_ONLY = frozenset({"expressions", "kind"})


def run_select(run: StatementRun) -> None:
    ast = run.statement.ast
    if isinstance(ast, exp.Select) and all(key in _EXPRESSIONS_ONLY for key, value in ast.args.items() if value):
        projection = [node.this if isinstance(node, exp.Alias) else node for node in ast.expressions]
        if not any(isinstance(node, exp.Star) or node.find(exp.AggFunc) is not None for node in projection):
            run.outcome.rows = [tuple(evaluate(run, projection))]
            run.session.found_rows = 1
            run.session.row_count = -1
            return
    tree = in_scan_order(run, ast.copy())
    tree.set("locks", None)
    run.outcome.rows = run.storage.query(run.translator().sql(tree))
    run.session.found_rows = len(run.outcome.rows)
    run.session.row_count = -1
