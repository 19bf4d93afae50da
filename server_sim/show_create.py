"""A table's definition as SHOW CREATE TABLE prints it: what a row-logged CREATE ... SELECT
writes to the binlog, so that the slave creates the same table."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal

from .charsets import COLLATIONS
from .key_parts import part_text
from .table import Column, DefaultKind, KeyKind, Table
from .temporal_types import time_text
from .types import TypeFamily


def show_create_table(table: Table) -> str:
    """The table's definition as SHOW CREATE TABLE gives it (on one line): what a
    row-logged CREATE ... SELECT writes, so that the slave creates the same table."""
    parts = [_column_definition(column, table.collation) for column in table.columns]
    for key in table.keys:
        columns = ", ".join(part_text(key, name) for name in key.columns)
        if key.kind is KeyKind.PRIMARY:
            parts.append(f"PRIMARY KEY ({columns})")
        else:
            parts.append(f"{'UNIQUE KEY' if key.unique else 'KEY'} `{key.name}` ({columns})")
    temporary = "TEMPORARY " if table.temporary else ""
    return f"CREATE {temporary}TABLE `{table.name}` ({', '.join(parts)}) ENGINE={table.engine.name}{_charset_clause(table.collation, '=')}"


def _charset_clause(collation: str | None, equals: str) -> str:
    """` DEFAULT CHARSET=x COLLATE=y` of a table, ` CHARACTER SET x COLLATE y` of a column."""
    if collation is None:
        return ""
    charset = COLLATIONS[collation].charset
    return f" DEFAULT CHARSET={charset} COLLATE={collation}" if equals else f" CHARACTER SET {charset} COLLATE {collation}"


def _column_definition(column: Column, table_collation: str | None) -> str:
    collation = column.type.collation
    own = _charset_clause(collation, "") if collation is not None and collation != table_collation else ""
    text = f"`{column.name}` {column.type.sql}{own}{'' if column.nullable else ' NOT NULL'}"
    if column.default_kind is DefaultKind.CURRENT_TIMESTAMP:
        text += " DEFAULT CURRENT_TIMESTAMP" + (f"({column.type.scale})" if column.type.scale else "")
    elif column.default_kind is DefaultKind.VALUE and not column.auto_increment:
        if column.default is not None:
            text += f" DEFAULT {_default_literal(column.default, column)}"
        elif column.nullable:
            text += " DEFAULT NULL"
    if column.auto_increment:
        text += " AUTO_INCREMENT"
    if column.on_update_current_timestamp:
        text += " ON UPDATE CURRENT_TIMESTAMP" + (f"({column.type.scale})" if column.type.scale else "")
    if column.type.json_check:
        text += f" CHECK (json_valid(`{column.name}`))"  # MariaDB's JSON alias
    return text


def _default_literal(value: object, column: Column) -> str:
    if column.type.family is TypeFamily.BIT:
        return "b'" + format(int(value), "b") + "'"  # type: ignore[call-overload]
    if isinstance(value, bytes):
        return f"0x{value.hex()}"
    if isinstance(value, (int, float, Decimal)):
        return str(value)
    text = value.isoformat(sep=" ") if isinstance(value, dt.datetime) else time_text(value) if isinstance(value, dt.timedelta) else str(value)
    return "'" + text.replace("\\", "\\\\").replace("'", "''") + "'"
