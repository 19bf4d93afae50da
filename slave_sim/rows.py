"""Applying row events to the slave's tables: find_row, images laid over defaults, key checks.

Columns match by position, as on real replicas: master column i is slave column i; master
columns beyond the slave's width are skipped, slave columns beyond the master's keep or
take their defaults.
"""

from __future__ import annotations

from dataclasses import dataclass

from server_sim.binlog.events import ColumnInfo
from server_sim.catalog import DefaultKind, Table
from server_sim.errors import ErrorCode, SqlError
from server_sim.storage import Storage
from server_sim.types import column_type_from_sql


@dataclass(frozen=True)
class FoundRow:
    row_id: int
    values: tuple
    path: str  # how it was found: "pk" or "scan"


def decode_image(values: list[object] | None, present: list[bool], columns: list[ColumnInfo], slave: Table) -> dict[int, object]:
    """Slave column index -> value, for the image's columns that exist on the slave."""
    if values is None:
        return {}
    image: dict[int, object] = {}
    stream = iter(values)
    for index, included in enumerate(present):
        if not included:
            continue
        encoded = next(stream)
        if index >= len(slave.columns):
            continue  # a master column the slave does not have
        master_type = column_type_from_sql(columns[index].type)
        value = master_type.from_json(encoded)
        column = slave.columns[index]
        image[index] = column.type.coerce(value, column.name)
    return image


def find_row(storage: Storage, table: Table, before: dict[int, object]) -> FoundRow | None:
    """The row a before image designates: by the slave's primary key when the image has all
    its columns, otherwise by scanning the table and comparing the image's columns."""
    primary = table.primary_key
    if primary is not None:
        indexes = [table.column_index(name) for name in primary.columns]
        if all(index in before for index in indexes):
            found = storage.find_by_columns(table, primary.columns, [before[i] for i in indexes], exclude=None)
            if not found:
                return None
            row_id, *values = found[0]
            return FoundRow(row_id, tuple(values), "pk")
    for row_id, *values in storage.rows(table, order=storage.physical_order(table)):
        if all(_same(values[index], value) for index, value in before.items()):
            return FoundRow(row_id, tuple(values), "scan")
    return None


def _same(stored: object, wanted: object) -> bool:
    """record_compare is byte-for-byte: string case matters here, unlike in key lookups."""
    return stored == wanted


def row_for_write(table: Table, after: dict[int, object], timestamp: object, warnings: list[str]) -> list[object]:
    """A new slave row: the slave's defaults, with the after image laid on top."""
    values: list[object] = []
    for index, column in enumerate(table.columns):
        if index in after:
            values.append(after[index])
        elif column.auto_increment:
            values.append(None)
        elif column.default_kind is DefaultKind.CURRENT_TIMESTAMP:
            values.append(timestamp)
        elif column.default_kind is DefaultKind.NONE:
            values.append(column.type.implicit_default())
            warnings.append(ErrorCode.ER_NO_DEFAULT_FOR_FIELD.template % column.name)
        else:
            values.append(column.default)
    return values


def row_for_update(found: FoundRow, after: dict[int, object]) -> list[object]:
    """The found row with the after image's columns replaced; the others keep slave values."""
    values = list(found.values)
    for index, value in after.items():
        values[index] = value
    return values


def missing_row_error(table: Table) -> SqlError:
    return SqlError(ErrorCode.ER_KEY_NOT_FOUND, table.name)
