"""DuckDB storage for one simulated server: rows only, no constraints.

Each table gets a hidden row-id column (ROW_ID): the row's identity and its insertion order,
which is the physical order of heap engines (MyISAM, MEMORY). Keys and constraints are
the catalog's business; DuckDB is never asked to enforce them.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field

import duckdb

from .table import Column, Table
from .declined import Declined
from .duckdb_connection import execute, quote
from .enum_set import number_sql
from .expressions import HIDDEN_ROW_ID
from .mirror.key_index import KeyIndexes
from .mirror.plans import table_scan
from .write_back import Unwritten, column_names, create_table_sql, stored_columns, write_changes

ROW_ID = HIDDEN_ROW_ID


def storage_name_of(table: Table) -> str:
    """The storage name a new table asks for. The server's own tables take names that start
    with one `#` and a letter (a temporary table `#tmp<thread>_<name>`, a system table
    `#sys:<db>.<name>`); a scenario's table keeps its name, with a second `#` if it starts
    with one, so `#tmp2_t` or `mysql.general_log` never shares their storage."""
    if table.system is not None:
        return f"#sys:{table.system.qualified_name}"
    if table.temporary:
        return f"#tmp{table.owner}_{table.name}"
    name = table.name.lower()
    return f"#{name}" if name.startswith("#") else name


@dataclass
class _Mirror:
    """A table's rows kept beside DuckDB: row id -> values as written, which are what
    DuckDB gives back (the column types' coercion made them so), in the catalog's column
    order at the time (`columns`), with the key indexes that find rows by value."""

    columns: tuple[str, ...]
    rows: dict[int, tuple]
    indexes: KeyIndexes = field(default_factory=KeyIndexes)

    def put(self, row_id: int, values: Sequence[object]) -> None:
        """Write a row (new, or changed) and keep the indexes up to date."""
        old = self.rows.get(row_id)
        if old is not None:
            self.indexes.removed(row_id, old)
        row = self.rows[row_id] = tuple(values)
        self.indexes.added(row_id, row)

    def pop(self, row_id: int) -> tuple | None:
        old = self.rows.pop(row_id, None)
        if old is not None:
            self.indexes.removed(row_id, old)
        return old


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
        # Second connections to the same database, one per query running (`nested`).
        self._inner: list[duckdb.DuckDBPyConnection] = []
        self._nesting = 0
        self.schema = schema
        self._mirrors: dict[str, _Mirror] = {}
        # Tables whose rows the mirror holds ahead of DuckDB, by storage name.
        self._unwritten: dict[str, Unwritten] = {}
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
        return execute(self._inner[self._nesting - 1] if self._nesting else self.connection, sql, parameters)

    @contextmanager
    def nested(self) -> Iterator[None]:
        """SQL run while DuckDB runs a query of this storage (a stored function's body that
        query calls per row), which cannot use that query's connection: it goes through
        another connection to the same database (which has the server's functions too).
        DuckDB holds no open transaction of the storage's, so both see the same rows."""
        if len(self._inner) == self._nesting:
            self._inner.append(self.connection.cursor())
        self._nesting += 1
        try:
            yield
        finally:
            self._nesting -= 1

    def discard(self) -> bool:
        """Drop everything this storage created in DuckDB (its schema, with its tables);
        whether that left the connection as the storage found it."""
        created = self._schema_created
        self.forget_rows()
        for inner in self._inner:
            inner.close()
        self._inner.clear()
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
            self._execute(create_table_sql(table, self.qualified(table)), ())
        unwritten, self._unwritten = self._unwritten, {}
        for changes in unwritten.values():
            table = changes.table
            write_changes(self._execute, self.qualified(table), changes, self._mirrors[table.storage_name].rows)

    def _changes(self, table: Table) -> Unwritten:
        changes = self._unwritten.get(table.storage_name)
        if changes is None:
            changes = self._unwritten[table.storage_name] = Unwritten(table)
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
        self._mirrors[storage_name] = _Mirror(column_names(table), {})

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
        keys = []
        for column in table.scan_order():
            column_type = table.column(column).type
            key = f"{name}.{quote(column)}"
            # An index orders an ENUM by its index, a SET by its bitmask, not by their text.
            keys.append(number_sql(column_type.name, column_type.members, key) if column_type.is_enum_or_set else key)
        return ", ".join([*keys, f"{name}.{quote(ROW_ID)}"])

    def insert(self, table: Table, row_id: int, values: Sequence[object], unless: Sequence[tuple[Sequence[str], Sequence[object]]] = ()) -> bool:
        """Insert a row, unless another row holds the given values of one of the `unless`
        column groups (the collation decides string equality); whether it did. The mirror
        tells; where it cannot, the INSERT checks the keys itself, in one statement."""
        holders = [self._holders(table, key_columns, key_values, None) for key_columns, key_values in unless]
        if any(holders):
            return False
        if None not in holders:
            self._mirror(table).put(row_id, values)
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
        [(inserted,)] = self.query(f"INSERT INTO {self.qualified(table)} ({stored_columns(table)}) SELECT {marks} WHERE NOT EXISTS ({holder})", parameters)
        if inserted == 1:
            self._mirror(table).put(row_id, values)  # DuckDB has it: loaded or not, the mirror does too
        return inserted == 1

    def update(self, table: Table, row_id: int, values: Sequence[object]) -> None:
        self._mirror(table).put(row_id, values)
        self._changes(table).update(row_id)

    def delete(self, table: Table, row_ids: Iterable[int]) -> None:
        mirror = self._mirror(table)
        changes = self._changes(table)
        for row_id in row_ids:
            if mirror.pop(row_id) is not None:
                changes.delete(row_id)

    def delete_all(self, table: Table) -> None:
        self._unwritten.pop(table.storage_name, None)
        if table.storage_name not in self._uncreated:
            self._create_schema()
            self._execute(f"DELETE FROM {self.qualified(table)}", ())
        mirror = self._mirror(table)
        mirror.rows.clear()
        mirror.indexes.clear()

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
        if mirror is None or mirror.columns != column_names(table):
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
        mirror's key index; None when only DuckDB can tell (text beyond ASCII)."""
        mirror = self._mirror(table)
        positions = tuple(mirror.columns.index(name.lower()) for name in columns)
        if any(table.columns[position].type.compares_exactly for position in positions):
            return None  # a _bin column's text: the keys fold case, DuckDB compares it exactly
        try:
            holders = mirror.indexes.holders(mirror.rows, positions, values)
        except Declined:  # text only DuckDB's collation can compare
            return None
        return [row_id for row_id in holders if row_id != exclude]

    def index_builds(self, table: Table) -> int:
        """How many times the table's key indexes were built by scanning its rows."""
        return self._mirror(table).indexes.builds

    def _mirror(self, table: Table) -> _Mirror:
        """The table's mirror, (re)loaded from DuckDB when it does not follow the table's columns."""
        names = column_names(table)
        mirror = self._mirrors.get(table.storage_name)
        if mirror is None or mirror.columns != names:
            mirror = _Mirror(names, {row_id: tuple(values) for row_id, *values in self.rows(table)})
            self._mirrors[table.storage_name] = mirror
        return mirror
