"""The executor's entry: one statement run on one server, dispatched by its kind to the
module of its family."""

from __future__ import annotations

from collections.abc import Mapping

from sqlglot import exp

from ..catalog import Catalog
from ..errors import Condition, ErrorCode, SqlError, not_supported, note, stack_overrun
from ..functions.statement import StatementContext
from ..functions.stored_result import stack_trace
from ..server import Server
from ..session import Session
from ..statement import Statement, StatementKind, target_tables, used_tables
from ..system_table_access import refuse_write
from ..sysvars import sql_modes, strict_sql_mode
from .admin import run_analyze_table, run_show
from .databases import create_database, drop_database, use_database
from .delete import run_delete
from .insert import run_insert
from .object_ddl import create_function, create_trigger, drop_function, drop_trigger
from .outcome import Outcome
from .reads import evaluate
from .rename import rename_tables
from .routine_ddl import create_routine, drop_procedure
from .run import ForcedAutoIncrement, StatementHandler, StatementRun, StatementScope
from .select import run_select
from .row_alias import with_row_alias
from .stored_functions import with_stored_functions
from .alter_table import alter_table
from .table_ddl import create_table, drop_table, truncate
from .update import run_update
from .views import ViewRowCheck, create_view, drop_view
from ..view_expansion import expand_views

# The statements carried out row by row: what a trigger's body may be, too.
ROW_STATEMENT_HANDLERS: Mapping[StatementKind, StatementHandler] = {
    StatementKind.INSERT: run_insert,
    StatementKind.REPLACE: run_insert,
    StatementKind.UPDATE: run_update,
    StatementKind.DELETE: run_delete,
}

HANDLERS: Mapping[StatementKind, StatementHandler] = {
    **ROW_STATEMENT_HANDLERS,
    StatementKind.SELECT: run_select,
    StatementKind.CREATE_TABLE: create_table,
    StatementKind.DROP_TABLE: drop_table,
    StatementKind.ALTER_TABLE: alter_table,
    StatementKind.TRUNCATE: truncate,
    StatementKind.RENAME_TABLE: rename_tables,
    StatementKind.CREATE_DATABASE: create_database,
    StatementKind.DROP_DATABASE: drop_database,
    StatementKind.USE: use_database,
    StatementKind.CREATE_TRIGGER: create_trigger,
    StatementKind.DROP_TRIGGER: drop_trigger,
    StatementKind.CREATE_FUNCTION: create_function,
    StatementKind.DROP_FUNCTION: drop_function,
    StatementKind.SHOW: run_show,
    StatementKind.ANALYZE_TABLE: run_analyze_table,
    StatementKind.CREATE_VIEW: create_view,
    StatementKind.DROP_VIEW: drop_view,


    StatementKind.CREATE_PROCEDURE: create_routine,
    StatementKind.DROP_PROCEDURE: drop_procedure,
}


# Client character sets in which the simulator reads a statement's text as it is written.
_UNICODE_CHARSETS = ("utf8mb4", "utf8mb3")


class Executor:
    """Runs statements against one server's catalog and storage."""

    def __init__(self, server: Server) -> None:
        self.server = server

    @property
    def catalog(self) -> Catalog:
        """The server's catalog as it is now (a reopened slave replaces it)."""
        return self.server.catalog

    def run(self, session: Session, statement: Statement, context: StatementContext, insert_id: int | None = None) -> Outcome:
        """Execute a DML, DDL or SELECT statement; `insert_id` forces the first auto value (Intvar)."""
        outcome = Outcome()
        try:
            statement = expand_views(statement, self.catalog, session.thread_id, self.server.flavor)
        except SqlError as error:
            outcome.error = error
            return outcome
        run = StatementRun(
            self.server, session, context, statement, outcome, ROW_STATEMENT_HANDLERS, ForcedAutoIncrement(insert_id), used_tables(statement)
        )
        if statement.view_checks:
            run.rows.row_check = ViewRowCheck(run)
        kind = statement.kind
        with self.server.running(session), self.server.collecting_conditions() as raised:
            try:
                self._refuse_system_writes(run)
                if session.variables.get("character_set_client", "utf8mb4") not in _UNICODE_CHARSETS and not statement.sql.isascii():
                    raise not_supported(f"non-ASCII text with character_set_client {session.variables['character_set_client']} (statements are read as Unicode)")
                if session.variables.get("sql_auto_is_null") == "ON":
                    self._refuse_auto_is_null(run)
                _refuse_unmodelled_sql_mode(run)
                handler = HANDLERS.get(kind)
                if handler is None:
                    raise not_supported(f"{kind.value} in the executor")
                aliased = with_row_alias(statement, self.server.flavor, lambda name: [column.name for column in self.catalog.get(name, session.thread_id).columns])
                run.statement = with_stored_functions(run, aliased)
                handler(run)
                if raised:  # conditions no part of the statement settled
                    raise not_supported(f"a division by zero (1365) in {kind.value} where the simulator does not model whether the server fails or warns")
            except SqlError as error:
                if error.code == ErrorCode.ER_UNKNOWN_STORAGE_ENGINE.code and "NO_ENGINE_SUBSTITUTION" not in sql_modes(session.variables):
                    error = not_supported("an unknown storage engine without NO_ENGINE_SUBSTITUTION in sql_mode (the server substitutes the default engine, with a warning)")
                outcome.error = error
                outcome.warnings.extend(error.notes)  # what the failing check noted first
                outcome.warnings.extend(stack_trace(error, self.server.flavor))
            except RecursionError:
                outcome.error = stack_overrun()  # expressions nested deeper than the translation's recursion
        if outcome.error is None and kind.is_dml:
            session.row_count = outcome.affected_rows
        deprecated = self.server.flavor.deprecated_syntax
        if deprecated:
            calls = [name for name in statement.calls if name in deprecated]
            if ":=" in deprecated and statement.ast is not None:
                calls += [":=" for node in statement.ast.find_all(exp.PropertyEQ) if isinstance(node.this, exp.Parameter)]
            if calls:  # raised as the statement is parsed: before any other
                outcome.warnings[:0] = [note(ErrorCode[deprecated[name]], level="Warning") for name in calls]
        return outcome

    def evaluate(
        self, session: Session, context: StatementContext, expressions: list[exp.Expression], warnings: list[Condition] | None = None
    ) -> list[object]:
        """Values of expressions outside any table's row, as `session`'s statement sees them;
        the warnings they raise go to `warnings` (None: a warning is refused, 1235)."""
        with self.server.running(session), self.server.collecting_conditions() as raised:  # whose RAND() it is
            values = evaluate(StatementScope(self.server, session, context), expressions)
        if raised and warnings is None:
            raise not_supported("a division by zero (1365) in a value outside any statement's rows (a CALL's or EXECUTE's argument)")
        if warnings is not None:
            warnings.extend(raised)
        return values

    def _refuse_auto_is_null(self, run: StatementRun) -> None:
        """sql_auto_is_null=1 turns `auto_increment_column IS NULL` into a lookup of the last
        inserted id, which the simulator does not model: refused rather than read as IS NULL."""
        ast = run.statement.ast
        if ast is None:
            return
        tested = {node.this.name.lower() for node in ast.find_all(exp.Is) if isinstance(node.expression, exp.Null) and isinstance(node.this, exp.Column)}
        if not tested:
            return
        for node in run.statement.table_nodes:
            table = self.catalog.resolve(node.db, node.name, run.session.thread_id)
            auto = table.auto_increment_column if table is not None else None
            if auto is not None and auto.name.lower() in tested:
                raise not_supported(f"`{auto.name} IS NULL` on an AUTO_INCREMENT column with sql_auto_is_null=1")

    def _refuse_system_writes(self, run: StatementRun) -> None:
        """A statement that changes a system table: refused as the server's access rules say."""
        for node in target_tables(run.statement):
            table = self.catalog.resolve(node.db, node.name, run.session.thread_id)
            if table is not None and table.system is not None:
                refuse_write(table.system, run.statement.kind, run.session.user)


# Objects that keep the sql_mode they are created under and run with it.
_KEEPS_SQL_MODE = frozenset({StatementKind.CREATE_TRIGGER, StatementKind.CREATE_FUNCTION, StatementKind.CREATE_PROCEDURE})


def _refuse_unmodelled_sql_mode(run: StatementRun) -> None:
    """A trigger or routine created outside strict mode would run outside it whatever the
    caller's sql_mode: the model runs them strictly, so that is refused."""
    if run.statement.kind in _KEEPS_SQL_MODE and not strict_sql_mode(run.session.variables):
        raise not_supported(f"{run.statement.kind.value} under a sql_mode without strict mode (it keeps that sql_mode)")
