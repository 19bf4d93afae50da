"""SHOW and ANALYZE TABLE: statements that change no rows. SHOW reads the server's state (its
result set is not modelled, its errors are: a table it names must exist); ANALYZE TABLE
updates statistics the simulator has none of, and reports a missing table in its result
set, not as an error. What they log is the pipeline's concern: SHOW nothing, ANALYZE
TABLE itself (unless NO_WRITE_TO_BINLOG or LOCAL)."""

from __future__ import annotations

from sqlglot import exp

from .run import StatementRun
from .views import show_create_view

# The SHOW forms that name a table, which must exist (1146).
_TABLE_SHOWS = frozenset({"CREATE TABLE", "COLUMNS", "INDEX", "INDEXES", "KEYS", "FIELDS"})


def run_show(run: StatementRun) -> None:
    ast = run.statement.ast
    assert isinstance(ast, exp.Show)
    target = ast.args.get("target")
    form = str(ast.this).upper()
    if form == "CREATE VIEW" and target is not None:
        show_create_view(run, target.name)
    elif form in _TABLE_SHOWS and target is not None:
        database = ast.args.get("db")
        if target.name not in run.catalog.views or run.catalog.find(target.name, run.session.thread_id) is not None:
            run.catalog.require(database.name if database is not None else None, target.name, run.session.thread_id)


def run_analyze_table(run: StatementRun) -> None:
    """Nothing to do: the simulator keeps no index statistics."""
