"""What a parsed statement is: its kind, its duplicate-key mode, its tree, and what it names.

The parser builds these; everything after it (the analysis, the locks, the executor, the
shrinker, the mysqltest writer) reads them, so the helpers that say which tables a
statement changes or reads live here, with the statement, not with any one of its users.
A `CREATE TRIGGER`'s definition is part of the statement too: sqlglot has no tree for it.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from functools import cached_property

from sqlglot import exp

from .binlog.events import Log_event
from .errors import ErrorCode, SqlError, not_supported
from .prepared import PreparedCommand
from .table_lock_statements import TableLock
from .views import ViewDefinition
from .udf import Udf


class StatementKind(Enum):
    INSERT = "INSERT"
    REPLACE = "REPLACE"
    UPDATE = "UPDATE"
    DELETE = "DELETE"
    SELECT = "SELECT"
    CREATE_TABLE = "CREATE TABLE"
    ALTER_TABLE = "ALTER TABLE"
    DROP_TABLE = "DROP TABLE"
    TRUNCATE = "TRUNCATE"
    RENAME_TABLE = "RENAME TABLE"
    CREATE_DATABASE = "CREATE DATABASE"
    DROP_DATABASE = "DROP DATABASE"
    USE = "USE"
    CREATE_TRIGGER = "CREATE TRIGGER"
    DROP_TRIGGER = "DROP TRIGGER"
    CREATE_FUNCTION = "CREATE FUNCTION"  # a loadable function (SONAME, `udf` set) or a stored one
    DROP_FUNCTION = "DROP FUNCTION"
    BEGIN = "BEGIN"
    COMMIT = "COMMIT"
    ROLLBACK = "ROLLBACK"
    SAVEPOINT = "SAVEPOINT"
    ROLLBACK_TO_SAVEPOINT = "ROLLBACK TO SAVEPOINT"
    RELEASE_SAVEPOINT = "RELEASE SAVEPOINT"
    SET = "SET"
    BINLOG = "BINLOG"
    SHOW = "SHOW"  # reads the server's state: changes and logs nothing
    ANALYZE_TABLE = "ANALYZE TABLE"  # an administration statement: logged, with an implicit commit
    PREPARE = "PREPARE"  # prepared statements from SQL: never logged themselves
    EXECUTE = "EXECUTE"
    DEALLOCATE_PREPARE = "DEALLOCATE PREPARE"
    CREATE_VIEW = "CREATE VIEW"  # CREATE [OR REPLACE] VIEW and ALTER VIEW
    DROP_VIEW = "DROP VIEW"


    CREATE_PROCEDURE = "CREATE PROCEDURE"
    DROP_PROCEDURE = "DROP PROCEDURE"
    CALL = "CALL"  # runs a procedure's statements, each logged on its own; never logged itself
    LOCK_TABLES = "LOCK TABLES"  # table locks the session holds until UNLOCK TABLES; never logged
    UNLOCK_TABLES = "UNLOCK TABLES"
    RESET_MASTER = "RESET MASTER"  # empties the binary log, after an implicit commit; never logged

    @property
    def is_dml(self) -> bool:
        """Statements that change rows; BINLOG '...' changes those its row events carry."""
        return self in (StatementKind.INSERT, StatementKind.REPLACE, StatementKind.UPDATE, StatementKind.DELETE, StatementKind.BINLOG)

    @property
    def is_ddl(self) -> bool:
        return self in (
            StatementKind.CREATE_TABLE,
            StatementKind.ALTER_TABLE,
            StatementKind.DROP_TABLE,
            StatementKind.TRUNCATE,
            StatementKind.RENAME_TABLE,
            StatementKind.CREATE_DATABASE,
            StatementKind.DROP_DATABASE,
            StatementKind.CREATE_TRIGGER,
            StatementKind.DROP_TRIGGER,
            StatementKind.CREATE_FUNCTION,
            StatementKind.DROP_FUNCTION,
            StatementKind.ANALYZE_TABLE,
            StatementKind.CREATE_VIEW,
            StatementKind.DROP_VIEW,


            StatementKind.CREATE_PROCEDURE,
            StatementKind.DROP_PROCEDURE,
        )

    @property
    def is_transaction_control(self) -> bool:
        return self in (
            StatementKind.BEGIN,
            StatementKind.COMMIT,
            StatementKind.ROLLBACK,
            StatementKind.SAVEPOINT,
            StatementKind.ROLLBACK_TO_SAVEPOINT,
            StatementKind.RELEASE_SAVEPOINT,
        )


class WriteMode(Enum):
    """What a duplicate key does to a statement that writes rows."""

    ERROR = "error"
    IGNORE = "ignore"
    REPLACE = "replace"
    UPDATE = "on duplicate key update"


class TriggerTiming(Enum):
    BEFORE = "BEFORE"
    AFTER = "AFTER"


class TriggerEvent(Enum):
    """trg_event_type: the row operation that fires a trigger."""

    INSERT = "INSERT"
    UPDATE = "UPDATE"
    DELETE = "DELETE"


class RowVersion(str, Enum):
    """The two pseudo-tables of a trigger body."""

    NEW = "NEW"
    OLD = "OLD"


class TriggerOrder(Enum):
    FOLLOWS = "FOLLOWS"
    PRECEDES = "PRECEDES"


# The row versions each event has (ER_TRG_NO_SUCH_ROW_IN_TRG for the other).
_ROWS_OF_EVENT = {
    TriggerEvent.INSERT: {RowVersion.NEW},
    TriggerEvent.UPDATE: {RowVersion.NEW, RowVersion.OLD},
    TriggerEvent.DELETE: {RowVersion.OLD},
}


@dataclass(frozen=True)
class TriggerDefinition:
    """A parsed CREATE TRIGGER: the header, and the body as a statement or as assignments to NEW.

    `NEW.col` and `OLD.col` stay in the body's tree as columns of the tables `NEW` and `OLD`;
    the executor puts the row's values in their places each time the trigger fires."""

    name: str
    timing: TriggerTiming
    event: TriggerEvent
    table: str
    sql: str  # the statement as written
    body_start: int  # where the TRIGGER keyword starts in `sql` (the server logs from there)
    body: Statement | None = None  # an INSERT, REPLACE, UPDATE or DELETE
    assignments: tuple[tuple[str, exp.Expression], ...] = ()  # SET NEW.col = expr, in order
    order: TriggerOrder | None = None
    other: str | None = None  # the trigger FOLLOWS/PRECEDES names
    compound: str | None = None  # a compound body (BEGIN ... END, IF, ...) as written

    def row_references(self) -> list[tuple[RowVersion, str]]:
        """Every NEW.col / OLD.col the body reads or assigns."""
        trees = [self.body.ast] if self.body is not None else [expression for _, expression in self.assignments]
        found = [(RowVersion.NEW, column) for column, _ in self.assignments]
        for tree in trees:
            for node in tree.find_all(exp.Column):
                version = row_version(node)
                if version is not None:
                    found.append((version, node.name))
        return found

    def check(self, references: list[tuple[RowVersion, str]] | None = None, assigns: bool = False) -> None:
        """The body's row references against the event and timing (1363, 1362); a
        compound body's are given."""
        allowed = _ROWS_OF_EVENT[self.event]
        for version, _ in self.row_references() if references is None else references:
            if version not in allowed:
                raise SqlError(ErrorCode.ER_TRG_NO_SUCH_ROW_IN_TRG, version.value, self.event.value)
        if (self.assignments or assigns) and self.timing is TriggerTiming.AFTER:
            raise SqlError(ErrorCode.ER_TRG_CANT_CHANGE_ROW, "NEW", "after ")


def row_version(node: exp.Column) -> RowVersion | None:
    """NEW or OLD when `node` is `NEW.col` / `OLD.col`."""
    qualifier = node.table.upper()
    return RowVersion(qualifier) if qualifier in ("NEW", "OLD") and not node.args.get("db") else None


def logged_create_trigger(definition: TriggerDefinition, user: str) -> str:
    """The text the server writes to the binlog: `CREATE DEFINER=`user`@`host` ` followed by
    the statement from its TRIGGER keyword on (the definer clause as written is replaced)."""
    name, _, host = user.partition("@")
    return f"CREATE DEFINER=`{name}`@`{host}` {definition.sql[definition.body_start:]}"


def logged_drop_table(ast: exp.Drop, temporary: bool, if_exists_in: str | None = None) -> str:
    """The text the servers write for DROP TABLE (atomic DDL logs a query of its own): the
    tables quoted, in the order written. `if_exists_in`: a database the text names every
    table in, with IF EXISTS (MariaDB's DROP TEMPORARY TABLE while its session logs in row
    format: the slave may not have the table)."""

    def quoted(node: exp.Table) -> str:
        database = node.db or if_exists_in
        parts = [database, node.name] if database else [node.name]
        return ".".join("`" + part.replace("`", "``") + "`" for part in parts)

    names = ",".join(quoted(node) for node in ast.args.get("tables") or [])
    exists = ast.args.get("exists") or if_exists_in is not None
    return f"DROP {'TEMPORARY ' if temporary else ''}TABLE {'IF EXISTS ' if exists else ''}{names} /* generated by server */"


@dataclass(frozen=True)
class Statement:
    """A parsed statement: its text, kind and sqlglot tree (shared; copy before changing)."""

    sql: str
    kind: StatementKind
    ast: exp.Expression | None = None
    savepoint: str | None = None
    write_mode: WriteMode = WriteMode.ERROR
    trigger: TriggerDefinition | None = None  # CREATE TRIGGER's definition (sqlglot has no tree for it)
    udf: Udf | None = None  # CREATE FUNCTION ... SONAME's function (sqlglot has no tree for it either)
    events: tuple[Log_event, ...] = ()  # what a BINLOG '...' statement carries
    delayed: bool = False  # INSERT DELAYED / REPLACE DELAYED: run as the plain statement
    discards_rows: bool = False  # DO expr, ...: a SELECT of expressions whose values are thrown away
    renames: tuple[tuple[exp.Table, exp.Table], ...] = ()  # RENAME TABLE's pairs (sqlglot has no tree for it)
    prepared: PreparedCommand | None = None  # PREPARE / EXECUTE / DEALLOCATE PREPARE as written
    view: ViewDefinition | None = None  # CREATE / ALTER VIEW's definition (sqlglot reads no header of it)
    # A write through a view WITH CHECK OPTION: each row written must meet these conditions
    # (over the base table's columns), with the name of the view ER_VIEW_CHECK_FAILED names.
    view_checks: tuple[tuple[str, exp.Expression], ...] = ()
    # The queries of the views a write goes through: their unsafe calls are the statement's
    # even where the rewritten statement no longer names them.
    view_queries: tuple[exp.Expression, ...] = ()
    table_locks: tuple[TableLock, ...] = ()  # LOCK TABLES' items (sqlglot has no tree for it)

    @cached_property
    def table_nodes(self) -> tuple[exp.Table, ...]:
        """Every table node of the tree, found once: the tree is shared and never changed,
        and the analysis, the locks and the executor each look for them."""
        return tuple(node for node in self.ast.find_all(exp.Table) if not is_cte_reference(node)) if self.ast is not None else ()

    @cached_property
    def calls(self) -> tuple[str, ...]:
        """The upper-case names of the server functions the tree calls by name (sqlglot
        leaves them unnamed), once per call, found once per text."""
        if self.ast is None:
            return ()
        return tuple(node.name.upper() for node in self.ast.find_all(exp.Anonymous))

    @property
    def creates_from_select(self) -> bool:
        """CREATE [TEMPORARY] TABLE ... SELECT: DDL that also writes rows."""
        return self.kind is StatementKind.CREATE_TABLE and self.ast is not None and self.ast.expression is not None

    @property
    def local_only(self) -> bool:
        """ANALYZE NO_WRITE_TO_BINLOG | LOCAL TABLE: kept out of the binlog."""
        return isinstance(self.ast, exp.Analyze) and bool(self.ast.args.get("options"))

    @property
    def temporary(self) -> bool:
        """CREATE/DROP TEMPORARY TABLE."""
        ast = self.ast
        if isinstance(ast, exp.Drop):
            return bool(ast.args.get("temporary"))
        if isinstance(ast, exp.Create):
            properties = ast.args.get("properties")
            return bool(properties and any(isinstance(p, exp.TemporaryProperty) for p in properties.expressions))
        return False


# The statements the executor carries out row by row (and that a trigger body may be).
ROW_STATEMENTS = (StatementKind.INSERT, StatementKind.REPLACE, StatementKind.UPDATE, StatementKind.DELETE)


def target_tables(statement: Statement) -> list[exp.Table]:
    """The tables a DML or DDL statement changes, as written."""
    ast = statement.ast
    if isinstance(ast, exp.Insert):
        target = ast.this
        return [target.this if isinstance(target, exp.Schema) else target]
    if isinstance(ast, (exp.Update, exp.Delete)):
        return [ast.this]
    if isinstance(ast, exp.TruncateTable):
        return list(ast.expressions)
    if isinstance(ast, exp.Drop):
        return list(ast.args.get("tables") or [])
    if isinstance(ast, exp.Create):
        schema = ast.this
        return [schema.this if isinstance(schema, exp.Schema) else schema]
    if isinstance(ast, exp.Alter):
        return [ast.this]
    if statement.trigger is not None:
        return [exp.to_table(statement.trigger.table)]
    if statement.renames:
        return [old for old, _ in statement.renames]
    return []


def is_cte_reference(node: exp.Table) -> bool:
    """Whether `node` names a common table expression of a WITH around it, not a table: an
    unqualified name of a CTE of an enclosing query (a CTE's own body sees the CTEs before
    it, and itself only under RECURSIVE)."""
    if node.args.get("db") or not isinstance(node.this, exp.Identifier):
        return False
    name = node.name.lower()
    inside: exp.Expression | None = None  # the CTE whose body the walk came up through
    parent = node.parent
    while parent is not None:
        with_ = parent.args.get("with_")
        if isinstance(with_, exp.With):
            for cte in with_.expressions:
                if cte is inside and not with_.args.get("recursive"):
                    break  # the CTEs from this one on are not in scope of its body
                if cte.alias_or_name.lower() == name:
                    return True
        if isinstance(parent, exp.CTE):
            inside = parent
        parent = parent.parent
    return False


def used_tables(statement: Statement) -> list[str]:
    """The tables a statement names, by lowercase name."""
    return [node.name.lower() for node in statement.table_nodes]


def is_multi_table(ast: exp.Expression | None) -> bool:
    """UPDATE over a join or table list; DELETE with a list of targets or USING."""
    if isinstance(ast, exp.Update):
        return bool(ast.this.args.get("joins"))
    if isinstance(ast, exp.Delete):
        return bool(ast.args.get("tables")) or bool(ast.args.get("using"))
    return False


def from_clause(ast: exp.Update | exp.Delete) -> exp.Table:
    """The first table of a multi-table statement's FROM clause (its joins hang on it)."""
    using = ast.args.get("using") if isinstance(ast, exp.Delete) else None
    if using:
        if len(using) != 1:
            raise not_supported("DELETE ... USING with more than one table expression")
        return using[0]
    return ast.this


def reference_nodes(ast: exp.Update | exp.Delete) -> list[exp.Table]:
    """The tables of the FROM clause (an UPDATE's table list), in the order written."""
    first = from_clause(ast)
    nodes = [first]
    for join in first.args.get("joins") or []:
        if not isinstance(join.this, exp.Table) or not isinstance(join.this.this, exp.Identifier):
            raise not_supported(f"a join over {join.this.sql(dialect='mysql')!r} in a multi-table statement")
        nodes.append(join.this)
    return nodes


def delete_list(ast: exp.Delete) -> list[exp.Table]:
    """A multi-table DELETE's targets as written: before FROM, or after FROM with USING."""
    if ast.args.get("using"):
        return [ast.this, *(join.this for join in ast.this.args.get("joins") or [])]
    return list(ast.args.get("tables") or [])


def source_nodes(statement: Statement) -> list[exp.Table]:
    """Every table node that opens a table: the FROM clause first, then subqueries'. A
    multi-table DELETE's target list only names tables of its FROM clause."""
    ast = statement.ast
    if not is_multi_table(ast):
        return list(statement.table_nodes)
    assert isinstance(ast, (exp.Update, exp.Delete))
    references = reference_nodes(ast)
    skipped = {id(node) for node in references}
    if isinstance(ast, exp.Delete):
        skipped |= {id(node) for node in delete_list(ast)}
    return references + [node for node in ast.find_all(exp.Table) if id(node) not in skipped]
