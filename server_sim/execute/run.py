"""One statement being executed: the server and session it runs in, its fixed values, and
what it has done so far, passed to every part of the executor instead of each part taking
them one by one."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from sqlglot import exp

from ..catalog import Catalog
from ..table import Table
from ..types import ColumnType, TypeFamily
from ..expressions import Translator
from ..functions.statement import StatementContext
from ..server import Server
from ..session import Session
from ..statement import Statement, StatementKind, used_tables
from ..storage import Storage
from ..sysvars import sql_modes
from ..temporal_types import TemporalRules
from ..errors import not_supported
from ..types import temporal_family
from ..view_expansion import view_of
from .handler import RowHandler
from .outcome import Outcome


@dataclass
class ForcedAutoIncrement:
    """auto_inc_intervals_forced: the value an Intvar event gives a replayed statement. The
    first table that asks for an auto-increment value takes it as an open interval its later
    rows continue in; any other table (one a trigger inserts into) counts on its own."""

    next: int | None = None
    owner: Table | None = None

    def applies_to(self, table: Table) -> bool:
        return self.next is not None and (self.owner is None or self.owner is table)


@dataclass(eq=False)
class StatementScope:
    """What evaluating anything of a statement needs: the server, the session whose
    statement it is (its RAND() generator, its temporary tables) and the statement's fixed
    values. The master evaluates expressions in one without running a statement."""

    server: Server
    session: Session
    context: StatementContext

    @property
    def catalog(self) -> Catalog:
        """The server's catalog as it is now (a reopened slave replaces it)."""
        return self.server.catalog

    @property
    def storage(self) -> Storage:
        return self.server.storage

    @property
    def temporal_rules(self) -> TemporalRules:
        """How the statement reads temporal values it stores: its server's rules, with the
        zero-date members of its session's sql_mode."""
        return self.server.flavor.temporal.under_sql_mode(sql_modes(self.session.variables))

    def table(self, node: exp.Table) -> Table:
        """The table `node` names for this session; a system table filled as this session sees it."""
        table = self.catalog.require(node.db, node.name, self.session.thread_id)
        if table.system is not None:
            self.server.fill_system_table(table, self.session)
        return table

    def translator(self) -> Translator:
        """A fresh translation to DuckDB SQL (each numbers its own RAND(N) call sites),
        knowing the MySQL JSON columns of the tables the statement names."""
        statement: Statement | None = getattr(self, "statement", None)  # a StatementRun's; a bare scope names no table
        ast = statement.ast if statement is not None else None
        named = [self.catalog.find(node.name, self.session.thread_id) for node in (ast.find_all(exp.Table) if ast is not None else ())]
        json_columns = {c.key for table in named if table is not None for c in table.columns if c.type.family is TypeFamily.JSON}

        def table_source(node: exp.Table) -> exp.Expression:
            """A derived table of the catalog's columns: the hidden row id stays out of `*`."""
            table = self.table(node)
            json_columns.update(c.key for c in table.columns if c.type.family is TypeFamily.JSON)
            stored = exp.table_(exp.to_identifier(table.storage_name, quoted=True), db=exp.to_identifier(self.storage.schema, quoted=True))
            return exp.select(*(exp.column(c.name, quoted=True) for c in table.columns)).from_(stored)

        def columns_of(node: exp.Table) -> list[tuple[str, ColumnType]]:
            table = self.catalog.require(node.db, node.name, self.session.thread_id)  # not filled: only its types are read
            return [(column.name, column.type) for column in table.columns]

        def unique_keys(node: exp.Table) -> list[tuple[str, ...]]:
            """The keys that identify one row of the table: primary, or unique over NOT NULL columns."""
            table = self.catalog.require(node.db, node.name, self.session.thread_id)
            return [key.columns for key in table.keys if table.identifies_rows(key)]

        translator = Translator(self.context, table_source, columns_of, self.statement_tables())
        translator.unique_keys = unique_keys
        # Expressions are also translated apart from their table (a row's new values): the
        # guard knows every TIME and YEAR column by name, the session's temporary ones too.
        tables = [*self.catalog.tables.values(), *self.catalog.temporary.values()]
        translator.temporal_columns = {c.key: guarded for t in tables for c in t.columns if (guarded := temporal_family(c.type))}
        translator.json_columns = json_columns
        return translator

    def statement_tables(self) -> tuple[exp.Table, ...]:
        """The tables of the statement whose parts are translated (none: an expression alone)."""
        return ()


# Carries out one kind of statement; the row statements' handlers also run trigger bodies.
StatementHandler = Callable[["StatementRun"], None]


@dataclass(eq=False)
class StatementRun(StatementScope):
    """One statement on one server, or a trigger's statement inside it (a sub-run sharing
    the session, context and forced auto-increment, with an outcome of its own)."""

    statement: Statement
    outcome: Outcome
    # The executor's handlers of row statements, by kind: what a trigger's body runs through.
    row_statements: Mapping[StatementKind, StatementHandler]
    forced: ForcedAutoIncrement = field(default_factory=ForcedAutoIncrement)
    # Tables the statement and the triggers it fired use: a trigger may not change them (1442).
    tables_in_use: list[str] = field(default_factory=list)
    rows: RowHandler = field(init=False)

    def __post_init__(self) -> None:
        self.rows = RowHandler(self.server, self.session, self.outcome)

    def statement_tables(self) -> tuple[exp.Table, ...]:
        return self.statement.table_nodes

    def sub_run(self, statement: Statement) -> StatementRun:
        """A trigger body's run: its own outcome, the tables it names in use as well."""
        if self.catalog.views and any(view_of(node, self.catalog, self.session.thread_id) for node in statement.table_nodes):
            raise not_supported("a trigger body that uses a view")
        return StatementRun(
            self.server,
            self.session,
            self.context,
            statement,
            Outcome(),
            self.row_statements,
            self.forced,
            self.tables_in_use + used_tables(statement),
        )
