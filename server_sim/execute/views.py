"""CREATE / ALTER / DROP VIEW on the catalog, and the CHECK OPTION test of each row a
statement writes through a view."""

from __future__ import annotations

from sqlglot import exp

from ..table import Table
from ..errors import ErrorCode, SqlError, note
from ..functions.context import literal
from ..statement import target_tables
from ..view_expansion import check_view_tables, with_star_expanded
from ..views import check_view_query
from .reads import evaluate
from .run import StatementRun


def create_view(run: StatementRun) -> None:
    """CREATE [OR REPLACE] VIEW and ALTER VIEW: the name free of tables (1050), of views unless
    replacing (1050), the view to alter existing (1146); the query's tables existing."""
    definition = run.statement.view
    assert definition is not None
    catalog = run.catalog
    if catalog.find(definition.name) is not None:
        if definition.replaces:
            raise SqlError(ErrorCode.ER_WRONG_OBJECT, catalog.database, definition.name, "VIEW")
        raise SqlError(ErrorCode.ER_TABLE_EXISTS_ERROR, definition.name)
    exists = definition.name in catalog.views
    if definition.mode == "CREATE" and exists:
        raise SqlError(ErrorCode.ER_TABLE_EXISTS_ERROR, definition.name)
    if definition.mode == "ALTER" and not exists:
        raise SqlError(ErrorCode.ER_NO_SUCH_TABLE, catalog.database, definition.name)
    check_view_query(definition)
    check_view_tables(definition, catalog, run.session.thread_id)
    definition = with_star_expanded(definition, catalog, run.session.thread_id)
    check_view_query(definition)  # the column list against the columns `*` stood for
    catalog.views[definition.name] = definition


def drop_view(run: StatementRun) -> None:
    """DROP VIEW [IF EXISTS]: every view named goes; the names that are none are the
    flavor's error (or Note with IF EXISTS), a table among them noted as no view (1347)."""
    ast = run.statement.ast
    assert isinstance(ast, exp.Drop)
    catalog = run.catalog
    missing = []
    atomic = run.server.flavor.drop_view_atomic and not ast.args.get("exists")
    for node in ast.args.get("tables") or []:
        catalog.check_database(node.db)
    absent = [f"{catalog.database}.{node.name}" for node in ast.args.get("tables") or [] if node.name not in catalog.views]
    if atomic and absent:
        raise SqlError(ErrorCode[run.server.flavor.unknown_view_error], ",".join(absent))
    for node in ast.args.get("tables") or []:
        if catalog.views.pop(node.name, None) is not None:
            run.outcome.logged_despite_error = True  # mysql_drop_view logs once a view went
            continue
        if catalog.find(node.name) is not None:
            run.outcome.warnings.append(note(ErrorCode.ER_WRONG_OBJECT, catalog.database, node.name, "VIEW", level="Warning"))
        missing.append(f"{catalog.database}.{node.name}")
    if missing:
        error = ErrorCode[run.server.flavor.unknown_view_error]
        if ast.args.get("exists"):
            run.outcome.warnings.extend(note(error, name) for name in missing)
        else:
            raise SqlError(error, ",".join(missing))


def show_create_view(run: StatementRun, name: str) -> None:
    """SHOW CREATE VIEW (its result set is not modelled): a table is no view (1347), a
    missing name 1146; a view whose table is gone is shown with a Warning 1356."""
    catalog = run.catalog
    view = catalog.views.get(name)
    if catalog.find(name, run.session.thread_id) is not None:
        raise SqlError(ErrorCode.ER_WRONG_OBJECT, catalog.database, name, "VIEW")
    if view is None:
        raise SqlError(ErrorCode.ER_NO_SUCH_TABLE, catalog.database, name)
    try:
        check_view_tables(view, catalog, run.session.thread_id)
    except SqlError:
        run.outcome.warnings.append(note(ErrorCode.ER_VIEW_INVALID, catalog.database, name, level="Warning"))


def refuse_drop_table_of_view(run: StatementRun) -> None:
    """DROP TABLE naming a view: the flavor's error (MariaDB: 1965)."""
    for node in target_tables(run.statement):
        if node.name in run.catalog.views and run.catalog.find(node.name, run.session.thread_id) is None:
            error = ErrorCode[run.server.flavor.drop_table_of_view_error]
            raise SqlError(error, f"{node.db or run.catalog.database}.{node.name}")


class ViewRowCheck:
    """WITH CHECK OPTION: each row written to the view's base table must meet the view's
    conditions, or the statement fails (1369) at that row."""

    def __init__(self, run: StatementRun) -> None:
        self.run = run
        self.base = target_tables(run.statement)[0].name

    def __call__(self, table: Table, values: tuple) -> None:
        if table.name != self.base or table.temporary:
            return
        for view, condition in self.run.statement.view_checks:
            row = condition.copy()
            for column in list(row.find_all(exp.Column)):
                found = table.find_column(column.name)
                if found is not None:
                    column.replace(literal(values[table.column_index(found.name)]))
            value = evaluate(self.run, [row])[0]
            if value is None or value in (0, False, "0", ""):
                raise SqlError(ErrorCode[self.run.server.flavor.view_check_failed_error], self.run.catalog.database, view)
