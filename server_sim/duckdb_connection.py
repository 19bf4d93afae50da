"""The DuckDB side of the storage: locked-down connections, the pool servers take them
from, the cache of parsed statements, and DuckDB's errors as the server's.

Scenario SQL runs in these connections, so they can touch no file, database or extension;
and a connection costs as much to open as a whole run should take, so they are reused.
"""

from __future__ import annotations

import atexit
import os
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Generic, TypeVar

import duckdb

from .errors import ErrorCode, SqlError, not_supported
from .functions.unmodelled import unmodelled_in
from .functions.carried import carried_error_in

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


# DuckDB's parse of the SQL texts the storage ran: executing a parsed statement skips the
# parser, a fifth of a small statement's cost, and most texts recur (values travel as
# parameters). A parse depends on the text alone, not on the connection or its catalog.
_PARSED: dict[str, duckdb.Statement] = {}
_PARSED_LIMIT = 4096
# Freed before the interpreter tears DuckDB down, which otherwise reports them as leaks.
atexit.register(_PARSED.clear)


def parsed_statement(connection: duckdb.DuckDBPyConnection, sql: str) -> duckdb.Statement:
    statement = _PARSED.get(sql)
    if statement is None:
        if len(_PARSED) >= _PARSED_LIMIT:
            _PARSED.clear()  # texts with literals in them (a scan's WHERE) rarely come back
        [statement] = connection.extract_statements(sql)
        _PARSED[sql] = statement
    return statement


def execute(connection: duckdb.DuckDBPyConnection, sql: str, parameters: Sequence[object] = ()) -> list[tuple]:
    """Run SQL (parsed once per text) and fetch its rows; a DuckDB failure is the server's error."""
    try:
        return connection.execute(parsed_statement(connection, sql), list(parameters)).fetchall()
    except duckdb.Error as error:
        raise translate_error(error, sql) from None


_DUCKDB_COLUMN_NOT_FOUND = ('Referenced column "', 'column "')


def translate_error(error: duckdb.Error, sql: str) -> SqlError:
    """A MySQL error for a DuckDB failure, naming the statement DuckDB could not run."""
    text = str(error)
    refused = unmodelled_in(text)
    if refused is not None:  # a function of the library refused its arguments
        return not_supported(refused)
    raised = carried_error_in(text)
    if raised is not None:  # an implementation raised the server's error
        return raised
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
