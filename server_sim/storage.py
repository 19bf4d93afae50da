"""DuckDB storage for one simulated server: rows only, no constraints.

Each table gets a hidden `_rpl_row` column: the row's identity and its insertion order,
which is the physical order of heap engines (MyISAM, MEMORY). Keys and constraints are
the catalog's business; DuckDB is never asked to enforce them.
"""

from __future__ import annotations

import atexit
import os
from collections.abc import Callable, Iterable, Iterator, Sequence
from pathlib import Path
from dataclasses import dataclass, field
from typing import Generic, TypeVar

import duckdb

from .catalog import Column, Table
from .errors import ErrorCode, SqlError
from .expressions import HIDDEN_ROW_ID
from .mirror_scan import Declined, table_scan

ROW_ID = HIDDEN_ROW_ID

# Scenario SQL must not reach files, other databases or extensions.
_LOCKED_DOWN = {
    "enable_external_access": False,
    "autoload_known_extensions": False,
    "autoinstall_known_extensions": False,
    "allow_community_extensions": False,
    "threads": 1,
}


def quote(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def open_connection(database: Path | None = None) -> duckdb.DuckDBPyConnection:
    """A DuckDB database, in memory or in the file `database`, that cannot touch any other file."""
    return duckdb.connect(str(database) if database is not None else ":memory:", config=dict(_LOCKED_DOWN))


def lock_configuration(connection: duckdb.DuckDBPyConnection) -> None:
    """Freeze the configuration, after the server has registered its functions."""
    connection.execute("SET lock_configuration = true")


Prepared = TypeVar("Prepared")

# Every table, temporary ones too: what an in-memory connection must lose before the next
# server gets it. Servers create nothing but schemas and their tables in DuckDB, and an
# empty schema left behind changes nothing for the next.
_TABLES = "SELECT database_name, schema_name, table_name FROM duckdb_tables()"


class ConnectionPool(Generic[Prepared]):
    """In-memory DuckDB databases that the servers of one process use one after another.

    Opening a connection costs ~15 ms and closing one ~5 ms, as much as a whole run should
    take; emptying a returned one costs ~1 ms, dropping the one schema a server's storage
    made in it ~0.2 ms (`Storage.discard`). What `prepare` set up on a new connection
    (the server's functions) stays with it. A forked child leaves its parent's connections
    alone: DuckDB crashes closing them there.
    """

    def __init__(self, prepare: Callable[[duckdb.DuckDBPyConnection], Prepared]) -> None:
        self._prepare = prepare
        self._idle: list[tuple[duckdb.DuckDBPyConnection, Prepared]] = []
        self._inherited: list[tuple[duckdb.DuckDBPyConnection, Prepared]] = []
        os.register_at_fork(after_in_child=self._leave_to_parent)
        atexit.register(self.close)

    def acquire(self) -> tuple[duckdb.DuckDBPyConnection, Prepared]:
        """An empty, locked-down in-memory connection and what `prepare` made of it."""
        if self._idle:
            return self._idle.pop()
        connection = open_connection()
        prepared = self._prepare(connection)
        lock_configuration(connection)
        return connection, prepared

    def release(self, connection: duckdb.DuckDBPyConnection, prepared: Prepared, emptied: bool = False) -> None:
        """Take a connection back, emptied here unless its user already `emptied` it; one
        that cannot be emptied is closed instead."""
        try:
            if not emptied:
                _empty(connection)
        except duckdb.Error:
            connection.close()
        else:
            self._idle.append((connection, prepared))

    def close(self) -> None:
        for connection, _ in self._idle:
            connection.close()
        self._idle.clear()

    def _leave_to_parent(self) -> None:
        self._inherited.extend(self._idle)
        self._idle.clear()


def _empty(connection: duckdb.DuckDBPyConnection) -> None:
    """End any open transaction and drop every table: a schema's all at once, with it."""
    try:
        connection.execute("ROLLBACK")
    except duckdb.TransactionException:
        pass  # no transaction was open
    schemas: set[tuple[str, str]] = set()
    for database, schema, table in connection.execute(_TABLES).fetchall():
        if schema == "main":  # a database's own schema, which cannot be dropped
            connection.execute(f"DROP TABLE {quote(database)}.{quote(schema)}.{quote(table)}")
        else:
            schemas.add((database, schema))
    for database, schema in schemas:
        connection.execute(f"DROP SCHEMA {quote(database)}.{quote(schema)} CASCADE")


class _Uncertain(Exception):
    """Python cannot tell whether two values are equal as DuckDB's collation compares them."""


def _equality_key(value: object) -> object:
    """What a value compares as under NOACCENT.NOCASE: for ASCII text its lower case; other
    text is left to DuckDB. Numbers, dates and bytes were coerced to the column's type, so
    Python's equality is DuckDB's."""
    if isinstance(value, str):
        if not value.isascii():
            raise _Uncertain
        return value.lower()
    return value


@dataclass
class _Unwritten:
    """A table's row changes DuckDB has not received yet, as their net effect: the rows to
    delete, the rows to update in place and the rows to append, in that order, whose values
    the mirror holds. DuckDB keeps a row it updates where it is and puts a row it inserts
    last, as the mirror does, so the two list rows in the same order afterwards."""

    table: Table
    removed: set[int] = field(default_factory=set)  # rows DuckDB holds that were deleted
    updated: set[int] = field(default_factory=set)  # rows DuckDB holds whose values changed
    appended: dict[int, None] = field(default_factory=dict)  # rows DuckDB lacks, in insertion order

    def insert(self, row_id: int) -> None:
        self.appended[row_id] = None

    def update(self, row_id: int) -> None:
        if row_id not in self.appended:
            self.updated.add(row_id)

    def delete(self, row_id: int) -> None:
        if row_id in self.appended:
            del self.appended[row_id]  # DuckDB never had it
        else:
            self.removed.add(row_id)
            self.updated.discard(row_id)


@dataclass
class _Mirror:
    """A table's rows kept beside DuckDB: row id -> values as written, which are what
    DuckDB gives back (the column types' coercion made them so), in the catalog's column
    order at the time (`columns`)."""

    columns: tuple[str, ...]
    rows: dict[int, tuple]


class Storage:
    """The rows of one server's tables, in one DuckDB schema.

    A mirror of each table's rows in Python answers the unique-key checks every insert and
    update makes, and the scans it can evaluate, where asking DuckDB would cost half a
    millisecond each time. DuckDB stays the store that SQL reads: a table's row changes
    reach it, as their net effect, before anything reads it with SQL (a scan the mirror
    cannot answer, an expression, a join) and before a crash-safe server commits. What
    Python cannot compare as the collation does (text beyond ASCII) is asked of DuckDB, and
    a table the mirror has not followed (a reopened database, a changed column list) is
    reloaded from it.
    """

    def __init__(self, connection: duckdb.DuckDBPyConnection, schema: str) -> None:
        self.connection = connection
        self.schema = schema
        self._mirrors: dict[str, _Mirror] = {}
        # Tables whose rows the mirror holds ahead of DuckDB, by storage name.
        self._unwritten: dict[str, _Unwritten] = {}
        # Tables created since DuckDB was last brought up to date, which it does not have yet.
        self._uncreated: dict[str, Table] = {}
        self._schema_created = False

    def qualified(self, table: Table) -> str:
        return f"{quote(self.schema)}.{quote(table.storage_name)}"

    def query(self, sql: str, parameters: Sequence[object] = (), reads_tables: bool = True) -> list[tuple]:
        """Run SQL; one that reads or writes tables gets them up to date first."""
        if reads_tables and (self._unwritten or self._uncreated):
            self.flush()
        return self._execute(sql, parameters)

    def _execute(self, sql: str, parameters: Sequence[object]) -> list[tuple]:
        try:
            return self.connection.execute(_parsed(self.connection, sql), list(parameters)).fetchall()
        except duckdb.Error as error:
            raise translate_error(error, sql) from None

    def discard(self) -> bool:
        """Drop everything this storage created in DuckDB (its schema, with its tables);
        whether that left the connection as the storage found it."""
        created = self._schema_created
        self.forget_rows()
        if not created:
            return True
        try:
            self.connection.execute(f"DROP SCHEMA IF EXISTS {quote(self.schema)} CASCADE")
        except duckdb.Error:
            return False  # a failed transaction, for one: the pool empties the connection
        return True

    def flush(self) -> None:
        """Bring DuckDB up to date: create the tables it lacks, then give it every row
        change it has not received: per table, one DELETE, one UPDATE and one INSERT at
        most (of many rows, in parts)."""
        self._create_schema()
        uncreated, self._uncreated = self._uncreated, {}
        for table in uncreated.values():
            columns = ", ".join(f"{quote(c.name)} {c.type.duckdb_type}" for c in table.columns)
            self._execute(f"CREATE TABLE {self.qualified(table)} ({quote(ROW_ID)} BIGINT, {columns})", ())
        unwritten, self._unwritten = self._unwritten, {}
        for changes in unwritten.values():
            table = changes.table
            rows = self._mirrors[table.storage_name].rows
            stored = self.qualified(table)
            for ids in _parts(changes.removed):
                self._execute(f"DELETE FROM {stored} WHERE {quote(ROW_ID)} IN ({', '.join('?' for _ in ids)})", ids)
            marks = "(" + ", ".join("?" for _ in range(len(table.columns) + 1)) + ")"
            for part in _parts(changes.updated):
                if len(part) == 1:
                    [row_id] = part
                    assignments = ", ".join(f"{quote(c.name)} = ?" for c in table.columns)
                    self._execute(f"UPDATE {stored} SET {assignments} WHERE {quote(ROW_ID)} = ?", [*rows[row_id], row_id])
                    continue
                # One UPDATE joined to the new rows; the casts keep VALUES from choosing
                # column types of its own.
                assignments = ", ".join(f"{quote(c.name)} = CAST(new.{quote(c.name)} AS {_cast_type(c)})" for c in table.columns)
                self._execute(
                    f"UPDATE {stored} SET {assignments} FROM (VALUES {', '.join([marks] * len(part))}) AS new({_stored_columns(table)}) "
                    f"WHERE {stored}.{quote(ROW_ID)} = new.{quote(ROW_ID)}",
                    [v for row_id in part for v in (row_id, *rows[row_id])],
                )
            for part in _parts(changes.appended):
                self._execute(
                    f"INSERT INTO {stored} ({_stored_columns(table)}) VALUES {', '.join([marks] * len(part))}",
                    [v for row_id in part for v in (row_id, *rows[row_id])],
                )

    def _changes(self, table: Table) -> _Unwritten:
        changes = self._unwritten.get(table.storage_name)
        if changes is None:
            changes = self._unwritten[table.storage_name] = _Unwritten(table)
        return changes

    def _create_schema(self) -> None:
        if not self._schema_created:
            self._execute(f"CREATE SCHEMA IF NOT EXISTS {quote(self.schema)}", ())
            self._schema_created = True

    def create(self, table: Table, storage_name: str) -> None:
        """A new, empty table: DuckDB creates it when SQL first needs it (the catalog has
        refused every type DuckDB cannot store)."""
        table.storage_name = storage_name
        self._uncreated[storage_name] = table
        self._mirrors[storage_name] = _Mirror(_column_names(table), {})

    def drop(self, table: Table) -> None:
        name = table.storage_name
        self._unwritten.pop(name, None)
        self._mirrors.pop(name, None)
        if self._uncreated.pop(name, None) is None:
            self._create_schema()
            self._execute(f"DROP TABLE IF EXISTS {self.qualified(table)}", ())

    def add_column(self, table: Table, column: Column, fill: object) -> None:
        self.flush()
        self._mirrors.pop(table.storage_name, None)
        self._execute(f"ALTER TABLE {self.qualified(table)} ADD COLUMN {quote(column.name)} {column.type.duckdb_type}", ())
        if fill is not None:
            self._execute(f"UPDATE {self.qualified(table)} SET {quote(column.name)} = ?", [fill])

    def drop_column(self, table: Table, column: Column) -> None:
        self.flush()
        self._mirrors.pop(table.storage_name, None)
        self._execute(f"ALTER TABLE {self.qualified(table)} DROP COLUMN {quote(column.name)}", ())

    def rows(
        self,
        table: Table,
        where: str = "",
        order: str = "",
        limit: int | None = None,
        parameters: Sequence[object] = (),
        alias: str | None = None,
    ) -> list[tuple]:
        """(row id, *values in catalog order) for matching rows; `alias` names the table in `where`."""
        name = quote(alias or table.name)
        columns = ", ".join(f"{name}.{quote(c.name)}" for c in table.columns)
        sql = f"SELECT {name}.{quote(ROW_ID)}, {columns} FROM {self.qualified(table)} AS {name}"
        if where:
            sql += f" WHERE {where}"
        if order:
            sql += f" ORDER BY {order}"
        if limit is not None:
            sql += f" LIMIT {int(limit)}"
        return self.query(sql, parameters)

    def scan(self, table: Table) -> list[tuple]:
        """(row id, *values) of every row, in the engine's table-scan order: from the mirror
        where Python can order them as DuckDB does, else from DuckDB."""
        plan = table_scan(table)
        if plan is not None:
            try:
                return plan.rows(self._mirror(table).rows, None)
            except Declined:
                pass
        return self.rows(table, order=self.physical_order(table))

    def physical_order(self, table: Table, alias: str | None = None) -> str:
        """ORDER BY text for the engine's table-scan order."""
        name = quote(alias or table.name)
        return ", ".join(f"{name}.{quote(column)}" for column in [*table.scan_order(), ROW_ID])

    def insert(self, table: Table, row_id: int, values: Sequence[object], unless: Sequence[tuple[Sequence[str], Sequence[object]]] = ()) -> bool:
        """Insert a row, unless another row holds the given values of one of the `unless`
        column groups (the collation decides string equality); whether it did. The mirror
        tells; where it cannot, the INSERT checks the keys itself, in one statement."""
        holders = [self._holders(table, key_columns, key_values, None) for key_columns, key_values in unless]
        if any(holders):
            return False
        if None not in holders:
            self._mirror(table).rows[row_id] = tuple(values)
            self._changes(table).insert(row_id)
            return True
        name = quote(table.name)
        marks = ", ".join("?" for _ in range(len(values) + 1))
        parameters = [row_id, *values]
        matches = []
        for key_columns, key_values in unless:
            matches.append("(" + " AND ".join(f"{name}.{quote(column)} = ?" for column in key_columns) + ")")
            parameters.extend(key_values)
        # One subquery for all keys: a NOT EXISTS per key makes a two-key insert cost a third more.
        holder = f"SELECT 1 FROM {self.qualified(table)} AS {name} WHERE {' OR '.join(matches)}"
        [(inserted,)] = self.query(f"INSERT INTO {self.qualified(table)} ({_stored_columns(table)}) SELECT {marks} WHERE NOT EXISTS ({holder})", parameters)
        if inserted == 1:
            self._mirror(table).rows[row_id] = tuple(values)  # DuckDB has it: loaded or not, the mirror does too
        return inserted == 1

    def update(self, table: Table, row_id: int, values: Sequence[object]) -> None:
        self._mirror(table).rows[row_id] = tuple(values)
        self._changes(table).update(row_id)

    def delete(self, table: Table, row_ids: Iterable[int]) -> None:
        rows = self._mirror(table).rows
        changes = self._changes(table)
        for row_id in row_ids:
            if rows.pop(row_id, None) is not None:
                changes.delete(row_id)

    def delete_all(self, table: Table) -> None:
        self._unwritten.pop(table.storage_name, None)
        if table.storage_name not in self._uncreated:
            self._create_schema()
            self._execute(f"DELETE FROM {self.qualified(table)}", ())
        self._mirror(table).rows.clear()

    def find_by_columns(self, table: Table, columns: Sequence[str], values: Sequence[object], exclude: int | None) -> list[tuple]:
        """Rows whose `columns` equal `values` (the collation decides string equality)."""
        found = self.mirrored_rows(table, columns, values, exclude)
        if found is not None:
            return found
        conditions = [f"{quote(table.name)}.{quote(name)} = ?" for name in columns]
        parameters = list(values)
        if exclude is not None:
            conditions.append(f"{quote(ROW_ID)} <> ?")
            parameters.append(exclude)
        return self.rows(table, " AND ".join(conditions), self.physical_order(table), parameters=parameters)

    def mirrored_rows(self, table: Table, columns: Sequence[str], values: Sequence[object], exclude: int | None = None) -> list[tuple] | None:
        """(row id, *values) of the row other than `exclude` whose `columns` equal `values`
        (NULL matching NULL), or none, from the mirror; None when the mirror cannot answer
        alone: text only DuckDB can compare, or several rows, whose order DuckDB decides."""
        holders = self._holders(table, columns, values, exclude)
        if holders is None or len(holders) > 1:
            return None
        rows = self._mirrors[table.storage_name].rows  # loaded by _holders
        return [(row_id, *rows[row_id]) for row_id in holders]

    def mirrored(self, table: Table) -> dict[int, tuple] | None:
        """The table's rows as the mirror holds them (row id -> values in catalog order, the
        changes held back included), or None when no mirror follows the table's columns."""
        mirror = self._mirrors.get(table.storage_name)
        if mirror is None or mirror.columns != _column_names(table):
            return None
        return mirror.rows

    def is_empty(self, table: Table) -> bool:
        return not self._mirror(table).rows

    def row_count(self, table: Table) -> int:
        return len(self._mirror(table).rows)

    # -- the mirror --------------------------------------------------------------------

    def forget_rows(self) -> None:
        """Drop every mirror and the rows held back: DuckDB's rows changed behind them (a
        transaction rolled back in DuckDB itself). Each table is reloaded when next checked."""
        self._mirrors.clear()
        self._unwritten.clear()
        self._uncreated.clear()
        self._schema_created = False  # CREATE SCHEMA IF NOT EXISTS again, in case it was rolled back

    def _holders(self, table: Table, columns: Sequence[str], values: Sequence[object], exclude: int | None) -> list[int] | None:
        """Ids of the rows other than `exclude` whose `columns` equal `values`, from the
        mirror; None when only DuckDB can tell (text beyond ASCII)."""
        mirror = self._mirror(table)
        positions = [mirror.columns.index(name.lower()) for name in columns]
        try:
            wanted = [_equality_key(value) for value in values]
            return [
                row_id
                for row_id, row in mirror.rows.items()
                if row_id != exclude and all(_equality_key(row[position]) == key for position, key in zip(positions, wanted))
            ]
        except _Uncertain:
            return None

    def _mirror(self, table: Table) -> _Mirror:
        """The table's mirror, (re)loaded from DuckDB when it does not follow the table's columns."""
        names = _column_names(table)
        mirror = self._mirrors.get(table.storage_name)
        if mirror is None or mirror.columns != names:
            mirror = _Mirror(names, {row_id: tuple(values) for row_id, *values in self.rows(table)})
            self._mirrors[table.storage_name] = mirror
        return mirror


def _cast_type(column: Column) -> str:
    """The column's DuckDB type without its collation, which a CAST does not take."""
    return column.type.duckdb_type.split(" COLLATE ")[0]


# Rows per statement when DuckDB receives a table's changes: each row is a parameter per column.
_ROWS_PER_STATEMENT = 1000


def _parts(row_ids: Iterable[int]) -> Iterator[list[int]]:
    """The row ids in order, a statement's worth at a time."""
    ids = list(row_ids)
    for start in range(0, len(ids), _ROWS_PER_STATEMENT):
        yield ids[start : start + _ROWS_PER_STATEMENT]


def _stored_columns(table: Table) -> str:
    """The DuckDB table's column list: the row id, then the catalog's columns."""
    return ", ".join([quote(ROW_ID), *(quote(c.name) for c in table.columns)])


def _column_names(table: Table) -> tuple[str, ...]:
    return tuple(column.key for column in table.columns)


# DuckDB's parse of the SQL texts the storage ran: executing a parsed statement skips the
# parser, a fifth of a small statement's cost, and most texts recur (values travel as
# parameters). A parse depends on the text alone, not on the connection or its catalog.
_PARSED: dict[str, duckdb.Statement] = {}
_PARSED_LIMIT = 4096
# Freed before the interpreter tears DuckDB down, which otherwise reports them as leaks.
atexit.register(_PARSED.clear)


def _parsed(connection: duckdb.DuckDBPyConnection, sql: str) -> duckdb.Statement:
    statement = _PARSED.get(sql)
    if statement is None:
        if len(_PARSED) >= _PARSED_LIMIT:
            _PARSED.clear()  # texts with literals in them (a scan's WHERE) rarely come back
        [statement] = connection.extract_statements(sql)
        _PARSED[sql] = statement
    return statement


_DUCKDB_COLUMN_NOT_FOUND = ('Referenced column "', 'column "')


def translate_error(error: duckdb.Error, sql: str) -> SqlError:
    """A MySQL error for a DuckDB failure, naming the statement DuckDB could not run."""
    text = str(error)
    if isinstance(error, duckdb.TransactionException):
        # A write-write conflict with another transaction: the server's deadlock victim.
        return SqlError(ErrorCode.ER_LOCK_DEADLOCK)
    if isinstance(error, duckdb.BinderException) and "not found" in text:
        for marker in _DUCKDB_COLUMN_NOT_FOUND:
            if marker in text:
                name = text.split(marker, 1)[1].split('"', 1)[0]
                return SqlError(ErrorCode.ER_BAD_FIELD_ERROR, name, "field list")
    if isinstance(error, (duckdb.ConversionException, duckdb.OutOfRangeException)):
        return SqlError(ErrorCode.ER_UNKNOWN_ERROR, f"value conversion failed: {text.splitlines()[0]}")
    return SqlError(ErrorCode.ER_UNKNOWN_ERROR, f"the simulator could not evaluate this statement: {text.splitlines()[0]}")
