"""SELECT: DuckDB runs the translated query, rows in the engine's scan order where the
query leaves the order open; FOUND_ROWS() and ROW_COUNT() follow it."""

from __future__ import annotations

from .reads import in_scan_order
from .run import StatementRun


def run_select(run: StatementRun) -> None:
    tree = in_scan_order(run, run.statement.ast.copy())
    tree.set("locks", None)
    run.outcome.rows = run.storage.query(run.translator().sql(tree))
    run.session.found_rows = len(run.outcome.rows)
    run.session.row_count = -1
