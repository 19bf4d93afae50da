"""Unpacking row images onto the local tables: values converted, laid over defaults or found rows.

Columns match by position, as on real replicas: master column i is slave column i; master
columns beyond the slave's width are skipped, slave columns beyond the master's keep or
take their defaults.
"""

from __future__ import annotations

from server_sim.catalog import DefaultKind, Table
from server_sim.errors import Condition, ErrorCode, SqlError, note
from server_sim.flavor import Flavor
from server_sim.types import ColumnType

from .conversions import convert
from .find_row import FoundRow


def decode_image(values: list[object] | None, present: list[bool], master_types: list[ColumnType], slave: Table) -> dict[int, object]:
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
        master_type = master_types[index]
        column = slave.columns[index]
        image[index] = convert(master_type.from_json(encoded), master_type, column.type, column.name)
    return image


def row_for_write(table: Table, after: dict[int, object], master_width: int, timestamp: object, flavor: Flavor, warnings: list[Condition]) -> list[object]:
    """A new slave row: the slave's defaults, with the after image laid on top (seed 003,
    DEFAULT VALUES R1). A column without a default gets its type's implicit default, with
    Warning 1364 where the flavor checks that column."""
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
            if index >= master_width or not flavor.missing_column_warning_beyond_master_only:
                warnings.append(note(ErrorCode.ER_NO_DEFAULT_FOR_FIELD, column.name, level="Warning"))
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
