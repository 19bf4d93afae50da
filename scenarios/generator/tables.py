"""The tables a workload draws and its schema statements: a few columns of a few types
with few literals each, so that statements of different sessions collide on keys."""

from __future__ import annotations

import random
from dataclasses import dataclass
from enum import Enum

from .config import BLOBLESS_ENGINES, TRANSACTIONAL_ENGINES, GeneratorConfig


class ColumnType(Enum):
    """Column types, each with the literals a statement puts in it: few, so keys collide."""

    INT = "INT"
    VARCHAR = "VARCHAR(40)"
    TEXT = "TEXT"
    BLOB = "BLOB"
    DATETIME = "DATETIME"

    @property
    def literals(self) -> tuple[str, ...]:
        if self is ColumnType.INT:
            return ("0", "1", "2", "3", "4")
        if self is ColumnType.VARCHAR:
            return ("'a'", "'A'", "'b'", "'c'")  # 'a' and 'A' are one key value
        if self is ColumnType.DATETIME:
            return ("'2026-01-01 00:00:00'", "'2026-06-30 12:00:00'")
        return ("'x'", "'yy'", "'zzz'")

    @property
    def is_string(self) -> bool:
        return self in (ColumnType.VARCHAR, ColumnType.TEXT, ColumnType.BLOB)


@dataclass(frozen=True)
class Column:
    name: str
    type: ColumnType
    nullable: bool = True
    default: str | None = None  # the DEFAULT clause's text; None: no DEFAULT clause
    auto_increment: bool = False

    @property
    def required(self) -> bool:
        """An INSERT must name it: NOT NULL, no default, no generated value."""
        return not self.nullable and self.default is None and not self.auto_increment

    def definition(self) -> str:
        text = f"{self.name} {self.type.value}{'' if self.nullable else ' NOT NULL'}"
        if self.auto_increment:
            return text + " AUTO_INCREMENT"
        return text if self.default is None else f"{text} DEFAULT {self.default}"


@dataclass(frozen=True)
class Table:
    """A generated table: `id` and `v` (INT) always, the other columns when drawn."""

    name: str
    engine: str
    columns: tuple[Column, ...]
    primary: tuple[str, ...] = ()
    unique: tuple[str, ...] = ()  # one single-column UNIQUE key per name
    plain: tuple[str, ...] = ()  # one single-column plain KEY per name

    @property
    def transactional(self) -> bool:
        return self.engine in TRANSACTIONAL_ENGINES

    def column(self, name: str) -> Column:
        return next(column for column in self.columns if column.name == name)

    def has(self, name: str) -> bool:
        return any(column.name == name for column in self.columns)

    @property
    def auto_increment(self) -> Column | None:
        return next((column for column in self.columns if column.auto_increment), None)

    @property
    def keyed(self) -> bool:
        """Whether a duplicate key is possible (IGNORE, ON DUPLICATE KEY UPDATE, REPLACE matter)."""
        return bool(self.primary or self.unique)

    def order_key(self) -> str | None:
        """A NOT NULL unique column: ORDER BY it gives one row order on every server."""
        if self.primary:
            return self.primary[0]
        return next((name for name in self.unique if not self.column(name).nullable), None)

    def create(self) -> str:
        parts = [column.definition() for column in self.columns]
        if self.primary:
            parts.append(f"PRIMARY KEY ({', '.join(self.primary)})")
        parts.extend(f"UNIQUE KEY {name} ({name})" for name in self.unique)
        parts.extend(f"KEY {name} ({name})" for name in self.plain)
        return f"CREATE TABLE {self.name} ({', '.join(parts)}) ENGINE={self.engine}"


class Drawing:
    """What the drawing of one workload shares: every choice comes from `rng`, in a fixed
    order; the tables drawn, the columns whose values differ on the slave, and the copies
    INSERT ... SELECT makes of them."""

    def __init__(self, rng: random.Random, config: GeneratorConfig) -> None:
        self.rng = rng
        self.config = config
        self.tables: list[Table] = []
        self.volatile: set[str] = set()
        self.copies: set[tuple[str, str]] = set()  # (source, target) `table.column` of INSERT ... SELECT

    def _others(self, table: Table) -> list[Table]:
        """The tables a statement on `table` may read besides it."""
        return [other for other in self.tables if other is not table]


class SchemaDrawing(Drawing):
    """The master's tables, their first rows, a trigger, and how the slave's copy differs."""

    def _table(self, name: str) -> Table:
        rng = self.rng
        weights = self.config.engine_weights
        engine = rng.choices(list(weights), weights=list(weights.values()))[0]
        primary = rng.random() < 0.75
        id_column = Column("id", ColumnType.INT, nullable=not primary and rng.random() < 0.5, auto_increment=primary and rng.random() < 0.3)
        columns = [id_column]
        unique: list[str] = []
        plain: list[str] = []
        if rng.random() < 0.6:
            not_null = rng.random() < 0.4
            columns.append(Column("k", ColumnType.INT, nullable=not not_null, default="0" if not_null else None))
            unique.append("k")
        columns.append(Column("v", ColumnType.INT, default=rng.choice(("0", "1", None))))
        if rng.random() < 0.3:
            plain.append("v")
        if not primary and rng.random() < 0.5:
            plain.append("id")
        if rng.random() < 0.8:
            columns.append(Column("s", ColumnType.VARCHAR, nullable=rng.random() < 0.5, default=rng.choice(("'x'", "'a'"))))
        if engine not in BLOBLESS_ENGINES and rng.random() < 0.4:
            columns.append(Column("doc", rng.choice((ColumnType.TEXT, ColumnType.BLOB))))
        if rng.random() < 0.3:
            on_clock = rng.random() < 0.5
            columns.append(Column("ts", ColumnType.DATETIME, default="CURRENT_TIMESTAMP" if on_clock else None))
            if on_clock:
                self.volatile.add(f"{name}.ts")
        return Table(name, engine, tuple(columns), ("id",) if primary else (), tuple(unique), tuple(plain))

    def _first_rows(self, table: Table) -> str | None:
        """Up to three rows with distinct keys, so that UPDATE and DELETE find something."""
        count = self.rng.randint(0, 3)
        if not count:
            return None
        columns = [column for column in table.columns if not column.auto_increment]
        rows = []
        for number in range(1, count + 1):
            values = [str(number) if column.type is ColumnType.INT else column.type.literals[number % len(column.type.literals)] for column in columns]
            rows.append(f"({', '.join(values)})")
        return f"INSERT INTO {table.name} ({', '.join(c.name for c in columns)}) VALUES {', '.join(rows)}"

    def _trigger(self) -> str:
        """A row trigger on one table: a BEFORE trigger changing NEW.v, or an AFTER trigger
        that updates or deletes the other table's row with the same id (prelocking, the
        trigger's tables in the statement's logging decision, rows a trigger writes)."""
        rng = self.rng
        table = rng.choice(self.tables)
        others = self._others(table)
        event = rng.choice(("INSERT", "UPDATE", "DELETE"))
        row = "OLD" if event == "DELETE" else "NEW"
        if not others or rng.random() < 0.3:
            event = rng.choice(("INSERT", "UPDATE"))
            body = f"SET NEW.v = NEW.v + {rng.randint(1, 9)}"
            return f"CREATE TRIGGER {table.name}_{event.lower()} BEFORE {event} ON {table.name} FOR EACH ROW {body}"
        other = rng.choice(others)
        if rng.random() < 0.7:
            body = f"UPDATE {other.name} SET v = v + 1 WHERE id = {row}.id"
        else:
            body = f"DELETE FROM {other.name} WHERE id = {row}.id"
        return f"CREATE TRIGGER {table.name}_{event.lower()} AFTER {event} ON {table.name} FOR EACH ROW {body}"

    def _slave_schema(self) -> tuple[str, ...]:
        """One way the slave's copy of one table differs: an extra column, another default,
        fewer keys, or another primary key."""
        rng = self.rng
        table = rng.choice(self.tables)
        changes = [
            f"ADD COLUMN extra INT DEFAULT {rng.randint(0, 9)}",
            "ADD COLUMN extra INT NOT NULL",
            f"ALTER COLUMN v SET DEFAULT {rng.randint(5, 9)}",
        ]
        if table.primary:
            # An AUTO_INCREMENT column must stay in a key.
            changes.append("DROP PRIMARY KEY, ADD KEY (id)" if table.auto_increment else "DROP PRIMARY KEY")
        if table.unique:
            changes.append(f"DROP INDEX {table.unique[0]}")
            if table.primary and not table.auto_increment and not table.column(table.unique[0]).nullable:
                changes.append(f"DROP PRIMARY KEY, ADD PRIMARY KEY ({table.unique[0]})")
        return (f"ALTER TABLE {table.name} {rng.choice(changes)}",)
