"""A table with MySQL meaning: its columns (type, NULL-ability, default, attributes), its
keys and foreign keys, its engine, and the per-server counters (auto-increment) that go
with it. Everything replication depends on comes from here, not from DuckDB: key checks,
the primary-key equivalent, auto-increment, defaults and physical row order.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from enum import Enum

from .engines import Engine
from .errors import ErrorCode, SqlError
from .expressions import MAX_COLUMN_NAME
from .foreign_keys import ForeignKey
from .system_tables import SystemTable, TableCategory
from .types import ColumnType, flavor_type


class DefaultKind(Enum):
    NONE = "none"  # NOT NULL without DEFAULT: an insert must give a value
    VALUE = "value"  # a constant, possibly NULL
    CURRENT_TIMESTAMP = "current_timestamp"  # evaluated per statement, from the event's timestamp


@dataclass(frozen=True)
class Column:
    name: str
    type: ColumnType
    nullable: bool = True
    default_kind: DefaultKind = DefaultKind.VALUE
    default: object = None
    auto_increment: bool = False
    on_update_current_timestamp: bool = False
    # The name as MySQL compares column names (without case): looked up on every row.
    key: str = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        if len(self.name) > MAX_COLUMN_NAME:
            raise SqlError(ErrorCode.ER_TOO_LONG_IDENT, self.name)
        object.__setattr__(self, "key", self.name.lower())

    @property
    def sql(self) -> str:
        return f"{self.name} {self.type.sql}{'' if self.nullable else ' NOT NULL'}"


class KeyKind(Enum):
    PRIMARY = "PRIMARY"
    UNIQUE = "UNIQUE"
    INDEX = "KEY"


@dataclass(frozen=True)
class Key:
    name: str
    kind: KeyKind
    columns: tuple[str, ...]
    # The key parts that index a column's first characters (bytes for a binary string):
    # (column, length); server_sim/key_parts.py reads and checks them.
    prefixes: tuple[tuple[str, int], ...] = ()

    def prefix(self, column: str) -> int | None:
        """The length of the part indexing `column`'s first characters; None: all of it."""
        return next((length for name, length in self.prefixes if name.lower() == column.lower()), None)

    @property
    def unique(self) -> bool:
        return self.kind is not KeyKind.INDEX


@dataclass
class Table:
    """One table's definition plus its per-server counters."""

    name: str
    columns: list[Column]
    keys: list[Key]
    engine: Engine
    temporary: bool = False
    owner: int | None = None  # the session that owns a temporary table
    # A temporary table whose CREATE reached the binlog: its session's disconnect logs a
    # DROP for it (the servers' table_creation_was_logged); one never logged is dropped quietly.
    auto_increment: int = 1  # next value the counter hands out
    next_row_id: int = 1  # insertion sequence, the physical order of heap engines
    storage_name: str = ""
    system: SystemTable | None = None  # a table of the server's own, outside the user's database
    foreign_keys: list[ForeignKey] = field(default_factory=list)  # this table's, as the child
    collation: str | None = None  # the default of its text columns: DEFAULT CHARSET / COLLATE, else the database's

    @property
    def category(self) -> TableCategory:
        return self.system.category if self.system is not None else TableCategory.USER

    @property
    def no_replicate(self) -> bool:
        return self.category.no_replicate

    @property
    def qualified_name(self) -> str:
        """The name a statement must use: system tables carry their database."""
        return self.system.qualified_name if self.system is not None else self.name

    def column_names(self) -> list[str]:
        return [column.name for column in self.columns]

    def find_column(self, name: str) -> Column | None:
        lowered = name.lower()
        for column in self.columns:
            if column.key == lowered:
                return column
        return None

    def column(self, name: str) -> Column:
        column = self.find_column(name)
        if column is None:
            raise SqlError(ErrorCode.ER_BAD_FIELD_ERROR, name, "field list")
        return column

    def column_index(self, name: str) -> int:
        return self.columns.index(self.column(name))

    @property
    def auto_increment_column(self) -> Column | None:
        return next((column for column in self.columns if column.auto_increment), None)

    @property
    def primary_key(self) -> Key | None:
        """The server's PK: the declared one, else the first UNIQUE key of NOT NULL columns."""
        declared = next((key for key in self.keys if key.kind is KeyKind.PRIMARY), None)
        if declared is not None:
            return declared
        return next((key for key in self.keys if key.kind is KeyKind.UNIQUE and self.identifies_rows(key)), None)

    def identifies_rows(self, key: Key) -> bool:
        """Whether `key` tells every row apart: unique over NOT NULL columns (a PRIMARY KEY's are)."""
        return key.unique and all(not self.column(c).nullable for c in key.columns)

    def unique_keys(self) -> list[Key]:
        """Unique keys in the order the server checks them: PK, NOT NULL unique keys, the rest."""
        primary = self.primary_key
        rest = [key for key in self.keys if key.unique and key is not primary]
        rest.sort(key=lambda key: not self.identifies_rows(key))
        return ([primary] if primary else []) + rest

    def pke_columns(self) -> list[str]:
        """The primary-key equivalent: the PK's columns, or every column."""
        primary = self.primary_key
        return list(primary.columns) if primary else self.column_names()

    def scan_order(self) -> list[str]:
        """The columns the engine's table scan is ordered by; empty means insertion order."""
        primary = self.primary_key
        if self.engine.clustered and primary is not None:
            return list(primary.columns)
        return []

    def take_flavor_types(self, json_column_is_text: bool) -> None:
        """Each column of the type its declared type is on the flavor's server (MariaDB's JSON)."""
        self.columns = [dataclasses.replace(c, type=flavor_type(c.type, json_column_is_text)) for c in self.columns]

    def copy(self) -> Table:
        return dataclasses.replace(self, columns=list(self.columns), keys=list(self.keys), foreign_keys=list(self.foreign_keys))
